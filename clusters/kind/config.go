package kind

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// Where nodes find what the provider mounts into them from the host: each node's kubeadm
// patches (read-only), and the audit policy and every node's audit log (the apiservers
// write them; the suites read them on the host).
const (
	patchesDir = "/kind/skewcheck/patches"
	auditDir   = "/kind/skewcheck/audit"
)

// auditLogIn is where node i's (0-based) apiserver writes its audit log, under the audit
// directory, in the node and on the host alike.
func auditLogIn(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("node-%d", i+1), "audit.log")
}

// node is one control-plane node to make.
type node struct {
	version   string
	image     string
	images    nodeimage.Images
	flags     []string // extra kube-apiserver flags for this node only
	peerProxy bool     // the Mixed Version Proxy on
}

// clusterConfig is the kind configuration: one control-plane node per version, CoreDNS,
// kube-proxy and kind's CNI off (their images cannot be built offline, and the suites use
// neither), the Mixed Version Proxy on, and every node's own kubeadm patches mounted.
func clusterConfig(name string, nodes []node, patchRoot, auditRoot string, cgroupV1 bool) (*v1alpha4.Cluster, error) {
	if err := os.MkdirAll(auditRoot, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(auditRoot, "policy.yaml"), []byte(local.AuditPolicy), 0o644); err != nil {
		return nil, err
	}
	cfg := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     KindName(name),
		Networking: v1alpha4.Networking{
			DisableDefaultCNI: true,
			KubeProxyMode:     "none", // kind's internal NoneProxyMode; v1alpha4 has no constant for it
		},
		KubeadmConfigPatches: clusterPatches(cgroupV1),
	}
	for i, n := range nodes {
		dir := filepath.Join(patchRoot, fmt.Sprintf("node-%d", i+1))
		if err := os.MkdirAll(filepath.Dir(auditLogIn(auditRoot, i)), 0o755); err != nil {
			return nil, err
		}
		n.flags = append([]string{"--audit-policy-file=" + auditDir + "/policy.yaml",
			"--audit-log-path=" + auditLogIn(auditDir, i), "--audit-log-maxsize=100"}, n.flags...)
		if err := writeNodePatches(dir, n); err != nil {
			return nil, err
		}
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{
			Role:  v1alpha4.ControlPlaneRole,
			Image: n.image,
			ExtraMounts: []v1alpha4.Mount{
				{HostPath: dir, ContainerPath: patchesDir, Readonly: true},
				{HostPath: auditRoot, ContainerPath: auditDir},
			},
		})
	}
	v1alpha4.SetDefaultsCluster(cfg)
	return cfg, nil
}

// clusterPatches change the kubeadm configuration kind generates, for every node. They name
// no apiVersion, so kind applies them to v1beta3 (1.35) and v1beta4 (1.36+) alike.
func clusterPatches(cgroupV1 bool) []string {
	patches := []string{
		// The Mixed Version Proxy is each node's own (nodeFlags). kubeadm already sets the
		// front-proxy flags the proxied requests authenticate with. etcd keeps its data in
		// the node's /tmp, a tmpfs kind mounts in every node, as kind users do in CI: on
		// overlayfs, a loaded 2-core machine delays etcd's fsyncs past its 7 s request
		// timeout ("etcdserver: request timed out" on a fixture's create). Nothing is lost
		// that a kind cluster keeps: its nodes are never restarted (kube-apiserver is stopped
		// and started inside its node), and kind's clusters of several control-plane nodes do
		// not survive a restart of Docker anyway.
		`kind: ClusterConfiguration
etcd:
  local:
    dataDir: /tmp/etcd
apiServer:
  extraArgs:
    shutdown-watch-termination-grace-period: 2s
  extraVolumes:
  - name: skewcheck-audit
    hostPath: ` + auditDir + `
    mountPath: ` + auditDir + `
    pathType: Directory`,
		// CoreDNS and kube-proxy are addons whose images a node does not carry.
		`kind: InitConfiguration
skipPhases: [preflight, addon/coredns, addon/kube-proxy]
patches:
  directory: ` + patchesDir,
		`kind: JoinConfiguration
patches:
  directory: ` + patchesDir,
	}
	if cgroupV1 {
		// Kubelets from 1.35 refuse to start on cgroup v1 unless told otherwise.
		patches = append(patches, `kind: KubeletConfiguration
failCgroupV1: false`)
	}
	return patches
}

// jsonPatch is one RFC 6902 operation, as kubeadm's "+json" patch files hold them.
type jsonPatch struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value,omitempty"`
}

// writeNodePatches writes the kubeadm patches of one node: its own version's images in
// every static pod (a joining node would otherwise run the first node's version, which its
// image does not carry), and its own kube-apiserver flags.
func writeNodePatches(dir string, n node) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	image := func(ref string) jsonPatch {
		return jsonPatch{Op: "replace", Path: "/spec/containers/0/image", Value: ref}
	}
	// No liveness probe: a frozen server must stay frozen for as long as a test holds it,
	// as a local one does, not be restarted by the kubelet after about 80 s.
	apiserver := []jsonPatch{image(n.images.APIServer), {Op: "remove", Path: "/spec/containers/0/livenessProbe"}}
	for _, f := range n.flags {
		apiserver = append(apiserver, jsonPatch{Op: "add", Path: "/spec/containers/0/command/-", Value: f})
	}
	for target, ops := range map[string][]jsonPatch{
		"kube-apiserver":          apiserver,
		"kube-controller-manager": {image(n.images.ControllerManager)},
		"kube-scheduler":          {image(n.images.Scheduler)},
		"etcd":                    {image(n.images.Etcd)},
	} {
		b, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, target+"+json.json"), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// NodeAuditDir is where every node sees the audit logs of all the cluster's apiservers
// (one directory of the host, mounted into each node): a pod of the cluster mounts it to
// read them (skewcheck certify --audit-log-dir).
const NodeAuditDir = auditDir

// NodeAuditLog is node i's (0-based) apiserver's audit log, as a node sees it.
func NodeAuditLog(i int) string { return auditLogIn(auditDir, i) }
