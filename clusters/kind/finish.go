package kind

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/kind/pkg/cluster"
)

// apiserverPort is where kubeadm's apiserver listens in every node (kind's
// common.APIServerInternalPort).
const apiserverPort = 6443

// Identity names a kubeconfig context's user.
type Identity string

const (
	Admin        Identity = "admin" // kubeadm's admin (kubeadm:cluster-admins)
	Unprivileged Identity = "user"  // UnprivilegedUser
)

// ContextName is the kubeconfig context for endpoint ("apiserver-1", "lb") as id:
// <name>-<endpoint>, and <name>-<endpoint>-user for the unprivileged user, as local
// clusters name theirs.
func ContextName(name, endpoint string, id Identity) string {
	if id == Unprivileged {
		return name + "-" + endpoint + "-user"
	}
	return name + "-" + endpoint
}

// finish finds where each apiserver is published and writes the kubeconfig: per apiserver
// (the node's own endpoint) and for the load balancer, as the admin and as the
// unprivileged user.
func finish(ctx context.Context, eng *engine, p *cluster.Provider, cfg Config, nodes []node, kindAdmin string) (*Cluster, error) {
	c := &Cluster{Name: cfg.Name, Kubeconfig: filepath.Join(cfg.Dir, "kubeconfig")}
	for i, n := range nodes {
		addr, err := eng.hostPort(ctx, nodeContainer(cfg.Name, i), apiserverPort)
		if err != nil {
			return nil, err
		}
		c.Servers = append(c.Servers, Server{Name: fmt.Sprintf("apiserver-%d", i+1), Version: n.version, PeerProxy: n.peerProxy,
			Node: nodeContainer(cfg.Name, i), URL: "https://" + addr, AuditLog: auditLogIn(filepath.Join(cfg.Dir, "audit"), i)})
	}
	if len(nodes) > 1 {
		addr, err := eng.hostPort(ctx, loadBalancerContainer(cfg.Name), apiserverPort)
		if err != nil {
			return nil, err
		}
		c.LoadBalancer = "https://" + addr
	}

	admin, err := clientcmd.LoadFromFile(kindAdmin)
	if err != nil {
		return nil, fmt.Errorf("reading kind's admin kubeconfig %s: %w", kindAdmin, err)
	}
	kctx := admin.Contexts[admin.CurrentContext]
	if kctx == nil || admin.Clusters[kctx.Cluster] == nil || admin.AuthInfos[kctx.AuthInfo] == nil {
		return nil, fmt.Errorf("kind's admin kubeconfig %s has no usable current context", kindAdmin)
	}
	ca := admin.Clusters[kctx.Cluster].CertificateAuthorityData
	caKey, err := readNodeFile(p, cfg.Name, "/etc/kubernetes/pki/ca.key")
	if err != nil {
		return nil, err
	}
	c.ca, c.caKey = ca, caKey
	userCert, userKey, err := clientCert(ca, caKey, UnprivilegedUser)
	if err != nil {
		return nil, err
	}

	out := clientcmdapi.NewConfig()
	out.AuthInfos[string(Admin)] = admin.AuthInfos[kctx.AuthInfo]
	out.AuthInfos[string(Unprivileged)] = &clientcmdapi.AuthInfo{ClientCertificateData: userCert, ClientKeyData: userKey}
	endpoints := map[string]string{}
	for _, s := range c.Servers {
		endpoints[s.Name] = s.URL
	}
	if c.LoadBalancer != "" {
		endpoints["lb"] = c.LoadBalancer
	}
	for endpoint, url := range endpoints {
		clusterName := cfg.Name + "-" + endpoint
		out.Clusters[clusterName] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: ca}
		for _, id := range []Identity{Admin, Unprivileged} {
			out.Contexts[ContextName(cfg.Name, endpoint, id)] = &clientcmdapi.Context{Cluster: clusterName, AuthInfo: string(id)}
		}
	}
	out.CurrentContext = ContextName(cfg.Name, c.Servers[0].Name, Admin)
	if err := clientcmd.WriteToFile(*out, c.Kubeconfig); err != nil {
		return nil, fmt.Errorf("writing kubeconfig %s: %w", c.Kubeconfig, err)
	}
	return c, nil
}

// readNodeFile reads a file from the first control-plane node.
func readNodeFile(p *cluster.Provider, name, path string) ([]byte, error) {
	nodes, err := p.ListNodes(KindName(name))
	if err != nil {
		return nil, fmt.Errorf("listing the nodes of %s: %w", KindName(name), err)
	}
	for _, n := range nodes {
		if n.String() != nodeContainer(name, 0) {
			continue
		}
		var out bytes.Buffer
		if err := n.Command("cat", path).SetStdout(&out).Run(); err != nil {
			return nil, fmt.Errorf("reading %s from node %s: %w", path, n, err)
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("cluster %s has no node %s", KindName(name), nodeContainer(name, 0))
}
