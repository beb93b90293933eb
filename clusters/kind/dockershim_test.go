package kind

import (
	"reflect"
	"testing"
)

func TestShimArgs(t *testing.T) {
	drop := []string{"SYS_RESOURCE"}
	cases := []struct{ in, want []string }{
		{[]string{"run", "--name", "n", "--privileged", "--tty", "img"},
			[]string{"run", "--name", "n", "--cap-add=ALL", "--cap-drop=SYS_RESOURCE", "--security-opt=systempaths=unconfined", "--device-cgroup-rule=a *:* rwm", "--tty", "img"}},
		{[]string{"exec", "--privileged", "-i", "node", "kubeadm", "init"}, []string{"exec", "-i", "node", "kubeadm", "init"}},
		// only kind's flag is rewritten, not a later argument that happens to match
		{[]string{"exec", "--privileged", "node", "echo", "--privileged"}, []string{"exec", "node", "echo", "--privileged"}},
		{[]string{"ps", "-a"}, []string{"ps", "-a"}},
		{nil, nil},
	}
	for _, c := range cases {
		if got := shimArgs(c.in, drop); !reflect.DeepEqual(got, c.want) {
			t.Errorf("shimArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
