package proxystate

import (
	"context"
	"strings"
	"testing"
)

// The fix follows the way the cluster was made: kubeadm's ClusterConfiguration and a patch
// where kube-system/kubeadm-config exists, the plain flags where it does not, both where
// that cannot be read, and skewcheck's own flags for servers skewcheck started (without
// asking the cluster anything).
func TestFixForTheWayTheClusterWasMade(t *testing.T) {
	kubeadm := fix(madeKubeadm, false)
	for _, want := range []string{"extraArgs:\n    - name: peer-ca-file\n      value: /etc/kubernetes/pki/ca.crt",
		"/etc/kubernetes/manifests/kube-apiserver.yaml", "kube-apiserver+json.json",
		`{"op": "add", "path": "/spec/containers/0/command/-", "value": "--peer-ca-file=/etc/kubernetes/pki/ca.crt"}`,
		"--peer-advertise-ip/--peer-advertise-port are not needed"} {
		if !strings.Contains(kubeadm, want) {
			t.Errorf("kubeadm's fix lacks %q:\n%s", want, kubeadm)
		}
	}
	flags := fix(madeOtherwise, false)
	if !strings.Contains(flags, "--peer-ca-file=<the CA that signed every apiserver's serving certificate, which must carry the DNS name kubernetes.default.svc>") ||
		!strings.Contains(flags, "--requestheader-client-ca-file") || strings.Contains(flags, "kubeadm") {
		t.Errorf("the plain flags' fix:\n%s", flags)
	}
	if both := fix(madeUnknown, true); !strings.Contains(both, "On a kubeadm cluster: ") || !strings.Contains(both, "\nOn any other: ") ||
		!strings.HasSuffix(both, fixGate) {
		t.Errorf("the fix when how the cluster was made is unknown, with a gate off:\n%s", both)
	}

	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", list: 404, notKubeadm: true}
	cp2 := &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "1", notKubeadm: true}
	if p := Read(context.Background(), target(t, cp1, cp2)); p.Fix != flags {
		t.Errorf("no kubeadm-config: fix %q, want the plain flags'", p.Fix)
	}
	cp1, cp2 = &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", list: 404}, &fake{name: "cp-2", version: "v1.36.3", served: set(gvrPods, gvrJobs), gate: "1"}
	started := target(t, cp1, cp2)
	started.Upstream = true
	p := Read(context.Background(), started)
	if p.Fix != fixSkewcheck || !strings.Contains(p.Fix, "--kubeadm-peer-proxy") {
		t.Errorf("servers skewcheck started: fix %q, want skewcheck's", p.Fix)
	}
	if cp1.askedKubeadm.Load() || cp2.askedKubeadm.Load() {
		t.Error("kubeadm-config was asked for on a cluster skewcheck made")
	}
}
