package nodeimage

import (
	"slices"
	"strings"
	"testing"
)

// TestParseImageList: kubeadm's list, as v1.36 prints it, sorted into what a node carries
// and what its switched-off addons would have used; a list without the control plane is
// refused.
func TestParseImageList(t *testing.T) {
	list := `registry.k8s.io/kube-apiserver:v1.36.3
registry.k8s.io/kube-controller-manager:v1.36.3
registry.k8s.io/kube-scheduler:v1.36.3
registry.k8s.io/kube-proxy:v1.36.3
registry.k8s.io/coredns/coredns:v1.13.1
registry.k8s.io/pause:3.10.1
registry.k8s.io/etcd:3.6.5-0
`
	s, err := ParseImageList("v1.36.3", list)
	if err != nil {
		t.Fatal(err)
	}
	want := Images{APIServer: "registry.k8s.io/kube-apiserver:v1.36.3", ControllerManager: "registry.k8s.io/kube-controller-manager:v1.36.3",
		Scheduler: "registry.k8s.io/kube-scheduler:v1.36.3", Etcd: "registry.k8s.io/etcd:3.6.5-0", Pause: "registry.k8s.io/pause:3.10.1"}
	if s.Images != want {
		t.Errorf("images %+v, want %+v", s.Images, want)
	}
	if !slices.Equal(s.Skipped, []string{"registry.k8s.io/kube-proxy:v1.36.3", "registry.k8s.io/coredns/coredns:v1.13.1"}) {
		t.Errorf("skipped %q", s.Skipped)
	}
	if _, err := ParseImageList("v1.36.3", "registry.k8s.io/pause:3.10.1\n"); err == nil || !strings.Contains(err.Error(), "expected kube-apiserver") {
		t.Errorf("a list without the control plane: %v", err)
	}
	if _, err := ParseImageList("v1.36.3", "no-tag-here\n"); err == nil {
		t.Error("a list entry with no tag was accepted")
	}
}
