package kind

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
)

func TestClusterConfig(t *testing.T) {
	dir := t.TempDir()
	imgs := func(v string) nodeimage.Images {
		return nodeimage.Images{APIServer: "registry.k8s.io/kube-apiserver:" + v, ControllerManager: "registry.k8s.io/kube-controller-manager:" + v,
			Scheduler: "registry.k8s.io/kube-scheduler:" + v, Etcd: "registry.k8s.io/etcd:3.6.5-0", Pause: "registry.k8s.io/pause:3.10.1"}
	}
	nodes := []node{
		{version: "v1.35.4", image: "skewcheck-kind/node:v1.35.4", images: imgs("v1.35.4")},
		{version: "v1.36.3", image: "skewcheck-kind/node:v1.36.3", images: imgs("v1.36.3"), flags: []string{"--runtime-config=batch/v1=false"}},
	}
	cfg, err := clusterConfig("skew", nodes, dir, filepath.Join(dir, "audit"), true)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "skewcheck-kind-skew" || len(cfg.Nodes) != 2 || cfg.Nodes[1].Image != "skewcheck-kind/node:v1.36.3" {
		t.Fatalf("config = %+v", cfg)
	}
	if !cfg.Networking.DisableDefaultCNI || cfg.Networking.KubeProxyMode != "none" {
		t.Errorf("networking = %+v, want kind's CNI and kube-proxy off", cfg.Networking)
	}
	if m := cfg.Nodes[1].ExtraMounts; len(m) != 2 || m[0].ContainerPath != patchesDir || m[0].HostPath != filepath.Join(dir, "node-2") || !m[0].Readonly ||
		m[1].ContainerPath != auditDir || m[1].HostPath != filepath.Join(dir, "audit") {
		t.Errorf("node 2 mounts = %+v", m)
	}
	all := strings.Join(cfg.KubeadmConfigPatches, "\n---\n")
	for _, want := range []string{"addon/coredns", "failCgroupV1: false", "directory: " + patchesDir, "dataDir: /tmp/etcd"} {
		if !strings.Contains(all, want) {
			t.Errorf("kubeadm patches lack %q:\n%s", want, all)
		}
	}
	if noV1, _ := clusterConfig("skew", nodes, t.TempDir(), t.TempDir(), false); strings.Contains(strings.Join(noV1.KubeadmConfigPatches, ""), "failCgroupV1") {
		t.Error("failCgroupV1 is set on a cgroup v2 host")
	}

	var ops []jsonPatch
	b, err := os.ReadFile(filepath.Join(dir, "node-2", "kube-apiserver+json.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ops); err != nil {
		t.Fatal(err)
	}
	want := []jsonPatch{
		{Op: "replace", Path: "/spec/containers/0/image", Value: "registry.k8s.io/kube-apiserver:v1.36.3"},
		{Op: "remove", Path: "/spec/containers/0/livenessProbe"},
		{Op: "add", Path: "/spec/containers/0/command/-", Value: "--audit-policy-file=/kind/skewcheck/audit/policy.yaml"},
		{Op: "add", Path: "/spec/containers/0/command/-", Value: "--audit-log-path=/kind/skewcheck/audit/node-2/audit.log"},
		{Op: "add", Path: "/spec/containers/0/command/-", Value: "--audit-log-maxsize=100"},
		{Op: "add", Path: "/spec/containers/0/command/-", Value: "--runtime-config=batch/v1=false"},
	}
	if len(ops) != len(want) {
		t.Fatalf("node 2 kube-apiserver patch = %+v, want %+v", ops, want)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Errorf("node 2 kube-apiserver patch %d = %+v, want %+v", i, ops[i], want[i])
		}
	}
	for _, target := range []string{"etcd", "kube-controller-manager", "kube-scheduler"} {
		if _, err := os.Stat(filepath.Join(dir, "node-1", target+"+json.json")); err != nil {
			t.Errorf("node 1 has no %s patch: %v", target, err)
		}
	}
}

// TestNodeFlags: a node without the proxy has the gate false and no --peer-ca-file (the
// apiserver refuses the file without the gate); one as kubeadm makes it has neither flag;
// the UID header from 1.33 only.
func TestNodeFlags(t *testing.T) {
	for _, tc := range []struct {
		version string
		mode    proxyMode
		want    []string
	}{
		{"v1.36.3", proxyOff, []string{"--feature-gates=UnknownVersionInteroperabilityProxy=false", "--requestheader-uid-headers=X-Remote-Uid"}},
		{"v1.35.4", proxyOn, []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true", "--peer-ca-file=/etc/kubernetes/pki/ca.crt", "--requestheader-uid-headers=X-Remote-Uid"}},
		{"v1.32.13", proxyOn, []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true", "--peer-ca-file=/etc/kubernetes/pki/ca.crt"}},
		{"v1.36.3", proxyAsKubeadm, []string{"--requestheader-uid-headers=X-Remote-Uid"}},
	} {
		if got := nodeFlags(tc.version, tc.mode); !slices.Equal(got, tc.want) {
			t.Errorf("%s, mode %v: %q, want %q", tc.version, tc.mode, got, tc.want)
		}
	}
}

// TestNameTooLongForDNS: a name whose load balancer's hostname passes a DNS label's 63
// characters is refused before anything is made, saying how long a name may be.
func TestNameTooLongForDNS(t *testing.T) {
	_, err := Create(context.Background(), Config{Name: "conformance-1234567-with-a-suffix", Versions: []string{"v1.36.3"}})
	if err == nil || !strings.Contains(err.Error(), "too long for kind") || !strings.Contains(err.Error(), "at most 25 characters") {
		t.Errorf("a 33-character name: %v, want it refused, naming the 25 characters a name may have", err)
	}
}

// TestFileConfigMakesNodes: the e2e-framework provider reads the schema every provider
// reads, a server per node with its flags, and refuses what a kind node cannot be given.
func TestFileConfigMakesNodes(t *testing.T) {
	p := &Provider{}
	fc := clusters.FileConfig{Name: "e2e", Servers: []clusters.ServerSpec{
		{Version: "v1.35.4", ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		{Version: "v1.36.3", DisablePeerProxy: true}, {Version: "v1.36.3", KubeadmPeerProxy: true}}}
	if err := p.apply(fc); err != nil {
		t.Fatal(err)
	}
	if p.cfg.Name != "e2e" || !slices.Equal(p.cfg.Versions, []string{"v1.35.4", "v1.36.3", "v1.36.3"}) ||
		!slices.Equal(p.cfg.ServerFlags[1], []string{"--runtime-config=batch/v1=false"}) || !p.cfg.NoPeerProxy[2] || p.cfg.NoPeerProxy[1] ||
		!p.cfg.KubeadmPeerProxy[3] || p.cfg.KubeadmPeerProxy[2] {
		t.Errorf("config = %+v", p.cfg)
	}
	for name, fc := range map[string]clusters.FileConfig{
		"a port":           {Port: 7443},
		"a peer advertise": {Servers: []clusters.ServerSpec{{Version: "v1.36.3", PeerAdvertise: "127.0.0.9:6443"}}},
		"an emulation":     {Servers: []clusters.ServerSpec{{Version: "v1.36.3", EmulatedVersion: "1.35"}}},
	} {
		var ns clusters.ErrNotSupported
		err := (&Provider{}).apply(fc)
		if fc.Port != 0 && (err == nil || !strings.Contains(err.Error(), "leave port out")) || fc.Port == 0 && (!errors.As(err, &ns) || ns.Provider != "kind") {
			t.Errorf("%s: %v, want it refused, saying what to do", name, err)
		}
	}
}
