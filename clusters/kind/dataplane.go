package kind

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
)

// A service dataplane under test (kube-proxy, skewcheck's reference, a vendor's) runs on a
// kind node as kube-proxy's DaemonSet pod does: in the node's network namespace (host
// network), watching the node's own apiserver, as kube-proxy's identity. The node images
// carry no kube-proxy image, so kube-proxy itself is the binary skewcheck builds, started
// in that namespace.

// AsNodeProxier is base with kube-proxy's own identity (system:kube-proxy, which upstream's
// bootstrap policy binds to system:node-proxier), signed by the cluster CA: a dataplane
// gets no more than upstream grants kube-proxy.
func (c *Cluster) AsNodeProxier(base *rest.Config) (*rest.Config, error) {
	if c.caKey == nil {
		return nil, errors.New("the kind cluster's CA key was not read at creation: only a cluster made by this process can sign identities")
	}
	cert, key, err := clientCert(c.ca, c.caKey, "system:kube-proxy")
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	cfg.CertFile, cfg.KeyFile, cfg.CertData, cfg.KeyData = "", "", cert, key
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	return cfg, nil
}

// DataplaneMachine is the node of server, for a dataplane to run on.
func (c *Cluster) DataplaneMachine(ctx context.Context, server string) (*dataplane.Machine, error) {
	i := c.serverIndex(server)
	if i < 0 {
		return nil, fmt.Errorf("cluster %s has no server %s", c.Name, server)
	}
	eng, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer eng.close()
	node := c.Servers[i].Node
	pid, err := eng.pid(ctx, node)
	if err != nil {
		return nil, fmt.Errorf("a dataplane cannot run on node %s: %w", node, err)
	}
	return &dataplane.Machine{Container: node, Pid: pid}, nil
}
