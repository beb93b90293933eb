package kind

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// A pod network as real clusters have it, for pods that are not on their node's network
// (hydrophone's, certify's restricted one): each node's pods get the node's own subnet
// (node.spec.podCIDR, which kubeadm's controller-manager allocates from kind's podSubnet),
// every node routes the others' subnets to them, and real kube-proxy on every node
// programs the Services, the kubernetes Service among them. This is what kindnetd and
// kube-proxy's DaemonSet do in a kind cluster; their images cannot be built here, so the
// provider does their work once, when the cluster is made: the nodes, their subnets and
// their addresses never change while the cluster lives. kube-proxy runs as a unit of the
// node's systemd, so it lives and ends with the node, whatever happens to this process.

const (
	// cniConfig is the node image's CNI configuration (nodeimage's 10-skewcheck.conflist),
	// which the pod network rewrites with the node's own subnet.
	cniConfig = "/etc/cni/net.d/10-skewcheck.conflist"
	// kubeProxyBinary and kubeProxyKubeconfig are where a node keeps its kube-proxy.
	kubeProxyBinary     = "/kind/skewcheck/kube-proxy"
	kubeProxyKubeconfig = "/kind/skewcheck/kube-proxy.kubeconfig"
	kubeProxyUnit       = "skewcheck-kube-proxy"
	// podNetworkBound is how long the nodes may take to get their subnets and kube-proxy to
	// program the kubernetes Service.
	podNetworkBound = 2 * time.Minute
)

// podNode is one node of the pod network: its container, address and pod subnet.
type podNode struct {
	node    nodes.Node
	version string
	ip      string
	podCIDR string
}

// startPodNetwork lays the pod network over the cluster's nodes and waits until every
// node's kube-proxy has programmed the kubernetes Service.
func (c *Cluster) startPodNetwork(ctx context.Context, p *cluster.Provider, bins binaries.Options, out io.Writer) error {
	fmt.Fprintln(out, "laying a pod network over the nodes (each node's podCIDR, routed between nodes) and starting kube-proxy on each")
	ctx, cancel := context.WithTimeout(ctx, podNetworkBound)
	defer cancel()
	nodes, err := c.podNodes(ctx, p)
	if err != nil {
		return err
	}
	kubeconfig, err := c.kubeProxyKubeconfig()
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if err := writeNodeFile(n.node, cniConfig, []byte(cniConflist(n.podCIDR)), "0644"); err != nil {
			return err
		}
		for _, other := range nodes {
			if other.node.String() == n.node.String() {
				continue
			}
			if _, err := nodeSh(n.node, fmt.Sprintf("ip route replace %s via %s", other.podCIDR, other.ip)); err != nil {
				return fmt.Errorf("routing node %s's pod subnet from node %s: %w", other.node, n.node, err)
			}
		}
		bin, err := binaries.Ensure(ctx, binaries.KubeProxy, n.version, bins)
		if err != nil {
			return fmt.Errorf("kube-proxy %s for node %s: %w", n.version, n.node, err)
		}
		if err := copyToNode(n.node, bin, kubeProxyBinary, "0755"); err != nil {
			return err
		}
		kc, err := kubeconfig(n.ip)
		if err != nil {
			return err
		}
		if err := writeNodeFile(n.node, kubeProxyKubeconfig, kc, "0600"); err != nil {
			return err
		}
		if _, err := nodeSh(n.node, kubeProxyCommand(n)); err != nil {
			return fmt.Errorf("starting kube-proxy on node %s: %w", n.node, err)
		}
	}
	for _, n := range nodes {
		if err := awaitKubernetesService(ctx, n.node); err != nil {
			return err
		}
	}
	return nil
}

// podNodes waits until every node has its pod subnet and an address.
func (c *Cluster) podNodes(ctx context.Context, p *cluster.Provider) ([]podNode, error) {
	cfg, err := c.RestConfig(c.Servers[0].Name, Admin)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	all, err := p.ListNodes(KindName(c.Name))
	if err != nil {
		return nil, fmt.Errorf("listing the nodes of %s: %w", KindName(c.Name), err)
	}
	for {
		found, missing, err := podNodesOf(ctx, cs, all, c.Servers)
		if err == nil && missing == "" {
			return found, nil
		}
		if missing == "" {
			missing = err.Error()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the nodes of %s did not all get a pod subnet within %v (kubeadm's controller-manager allocates them from the podSubnet): %s", KindName(c.Name), podNetworkBound, missing)
		case <-time.After(time.Second):
		}
	}
}

// podNodesOf reads the servers' nodes; missing says which node lacks a subnet or address.
func podNodesOf(ctx context.Context, cs kubernetes.Interface, all []nodes.Node, servers []Server) (found []podNode, missing string, err error) {
	for _, s := range servers {
		obj, err := cs.CoreV1().Nodes().Get(ctx, s.Node, metav1.GetOptions{})
		if err != nil {
			return nil, "", fmt.Errorf("reading node %s: %w", s.Node, err)
		}
		n := podNode{version: s.Version, podCIDR: obj.Spec.PodCIDR}
		for _, a := range obj.Status.Addresses {
			if a.Type == corev1.NodeInternalIP && !strings.Contains(a.Address, ":") {
				n.ip = a.Address
			}
		}
		if n.podCIDR == "" || n.ip == "" {
			return nil, fmt.Sprintf("node %s has podCIDR %q and internal IPv4 address %q", s.Node, n.podCIDR, n.ip), nil
		}
		for _, kn := range all {
			if kn.String() == s.Node {
				n.node = kn
			}
		}
		if n.node == nil {
			return nil, "", fmt.Errorf("kind has no node %s", s.Node)
		}
		found = append(found, n)
	}
	return found, "", nil
}

// cniConflist is the node image's CNI configuration with the node's own subnet. Nothing is
// masqueraded: a pod's address is what its peers see, since every node routes every
// subnet (kube-proxy masquerades what it must, from its --cluster-cidr).
func cniConflist(subnet string) string {
	return `{
  "cniVersion": "1.0.0",
  "name": "skewcheck",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "` + subnet + `"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
`
}

// kubeProxyCommand starts kube-proxy as a unit of the node's systemd, restarted if it
// ends, as kube-proxy's DaemonSet pod would be: iptables mode (kubeadm's default), the
// node's name, the cluster's pod range, and no conntrack sysctl, which a node (a
// container) may not write (kind sets the same for its kube-proxy).
func kubeProxyCommand(n podNode) string {
	return strings.Join([]string{"systemd-run", "--unit=" + kubeProxyUnit, "--property=Restart=always",
		kubeProxyBinary, "--kubeconfig=" + kubeProxyKubeconfig, "--hostname-override=" + n.node.String(),
		"--proxy-mode=iptables", "--cluster-cidr=" + podSubnet, "--conntrack-max-per-core=0"}, " ")
}

// podSubnet is kind's default pod range, from which the nodes' podCIDRs are cut.
const podSubnet = "10.244.0.0/16"

// kubeProxyKubeconfig returns, for a node's address, kube-proxy's kubeconfig: upstream's
// system:kube-proxy identity (bound to system:node-proxier by the bootstrap policy), signed
// by the cluster CA, against the node's own apiserver.
func (c *Cluster) kubeProxyKubeconfig() (func(ip string) ([]byte, error), error) {
	cert, key, err := clientCert(c.ca, c.caKey, "system:kube-proxy")
	if err != nil {
		return nil, err
	}
	return func(ip string) ([]byte, error) {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: "https://" + net.JoinHostPort(ip, fmt.Sprint(apiserverPort)), CertificateAuthorityData: c.ca}
		cfg.AuthInfos["kube-proxy"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
		cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: "kube-proxy"}
		cfg.CurrentContext = "node"
		return clientcmd.Write(*cfg)
	}, nil
}

// awaitKubernetesService waits until kube-proxy on node has programmed the kubernetes
// Service (its rules carry the Service's name as a comment).
func awaitKubernetesService(ctx context.Context, node nodes.Node) error {
	var last string
	for {
		rules, err := nodeSh(node, "iptables-save -t nat")
		if err == nil && strings.Contains(rules, "default/kubernetes:https") {
			return nil
		}
		last = lastLines(rules, 3)
		if err != nil {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			status, _ := nodeSh(node, "systemctl status --no-pager -n 20 "+kubeProxyUnit)
			return fmt.Errorf("kube-proxy on node %s did not program the kubernetes Service within %v (last: %s); its unit:\n%s", node, podNetworkBound, last, status)
		case <-time.After(time.Second):
		}
	}
}

// nodeSh runs a shell script in node and returns what it printed.
func nodeSh(node nodes.Node, script string) (string, error) {
	var out bytes.Buffer
	cmd := node.Command("sh", "-c", script)
	cmd.SetStdout(&out)
	cmd.SetStderr(&out)
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("in node %s, %q: %v: %s", node, script, err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}

// writeNodeFile writes data to path in node, with mode.
func writeNodeFile(node nodes.Node, path string, data []byte, mode string) error {
	return streamToNode(node, bytes.NewReader(data), path, mode)
}

// copyToNode copies a file of this machine to path in node, with mode.
func copyToNode(node nodes.Node, src, path, mode string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return streamToNode(node, f, path, mode)
}

func streamToNode(node nodes.Node, r io.Reader, path, mode string) error {
	var out bytes.Buffer
	cmd := node.Command("sh", "-c", fmt.Sprintf("mkdir -p $(dirname %[1]s) && cat > %[1]s.new && chmod %[2]s %[1]s.new && mv %[1]s.new %[1]s", path, mode))
	cmd.SetStdin(r)
	cmd.SetStdout(&out)
	cmd.SetStderr(&out)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("writing %s in node %s: %v: %s", path, node, err, strings.TrimSpace(out.String()))
	}
	return nil
}
