package kind

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/cluster"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Target describes the cluster for the suites: every node's apiserver is an endpoint the
// suite may also stop, kill and freeze (through the node, see nodeServer), with its audit
// log read on the host.
func (c *Cluster) Target(ctx context.Context) (*framework.Target, error) {
	if err := c.attachNodes(); err != nil {
		return nil, err
	}
	t := &framework.Target{Kind: "kind", Upstream: true, Converge: c.WaitConverged, RelearnPeers: c.RelearnPeers}
	for _, s := range c.Servers {
		admin, err := c.RestConfig(s.Name, Admin)
		if err != nil {
			return nil, err
		}
		user, err := c.RestConfig(s.Name, Unprivileged)
		if err != nil {
			return nil, err
		}
		t.Endpoints = append(t.Endpoints, &framework.Endpoint{Name: s.Name, URL: s.URL, Admin: admin, User: user, Hostname: s.Node, AuditLog: s.AuditLog, Node: c.control[s.Name]})
	}
	if ip, err := c.networkGateway(ctx); err != nil {
		t.NoExtensionHost = err.Error()
	} else {
		t.ExtensionHost, t.NoExtensionHost = framework.ExtensionHostAt(ip)
	}
	return t, t.Refresh(ctx)
}

// networkGateway is this machine's address on the cluster's network, where every node
// reaches it: an aggregated API's server the suites run listens there
// (framework.ExtensionHost).
func (c *Cluster) networkGateway(ctx context.Context) (string, error) {
	eng, err := connect(ctx)
	if err != nil {
		return "", err
	}
	defer eng.close()
	return eng.gateway(ctx, networkName(c.Name))
}

// attachNodes finds the node of every server, for NodeControl.
func (c *Cluster) attachNodes() error {
	if c.control != nil {
		return nil
	}
	all, err := cluster.NewProvider(cluster.ProviderWithDocker()).ListNodes(KindName(c.Name))
	if err != nil {
		return fmt.Errorf("listing the nodes of %s: %w", KindName(c.Name), err)
	}
	control := map[string]*nodeServer{}
	for _, s := range c.Servers {
		ready, err := c.readyCheck(s)
		if err != nil {
			return err
		}
		for _, n := range all {
			if n.String() == s.Node {
				control[s.Name] = &nodeServer{node: n, ready: ready}
			}
		}
		if control[s.Name] == nil {
			return fmt.Errorf("kind cluster %s has no node %s", KindName(c.Name), s.Node)
		}
	}
	c.control = control
	return nil
}

// readyCheck asks s's apiserver /readyz as its admin, each ask bounded by a few seconds.
func (c *Cluster) readyCheck(s Server) (func(context.Context) bool, error) {
	admin, err := c.RestConfig(s.Name, Admin)
	if err != nil {
		return nil, err
	}
	admin = rest.CopyConfig(admin)
	admin.Timeout = 5 * time.Second
	client, err := rest.HTTPClientFor(admin)
	if err != nil {
		return nil, fmt.Errorf("a client for %s's /readyz: %w", s.Name, err)
	}
	return func(ctx context.Context) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/readyz", nil)
		if err != nil {
			return false
		}
		resp, err := client.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, nil
}

// WaitConverged waits until every running apiserver reaches, through its proxy, every GVR
// some running apiserver serves; stopped ones do not count.
func (c *Cluster) WaitConverged(ctx context.Context) error {
	if err := c.attachNodes(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.convergeTimeout)
	defer cancel()
	pending, err := discovery.AwaitReached(ctx, c.members)
	if len(pending) > 0 || err != nil {
		return fmt.Errorf("the kind cluster did not converge within %v: %v %s", c.convergeTimeout, err, strings.Join(pending, "; "))
	}
	return nil
}

// RelearnPeers makes every apiserver rebuild its peer cache (local.NudgeIdentityLeases),
// for a test that saw a server drop a peer it then does not look at again for minutes (the
// known deviations of suites/chaos): the next test starts from a converged cluster.
func (c *Cluster) RelearnPeers(ctx context.Context) error {
	if err := c.attachNodes(); err != nil {
		return err
	}
	for _, s := range c.Servers {
		if !c.control[s.Name].running() {
			continue
		}
		cfg, err := c.RestConfig(s.Name, Admin)
		if err != nil {
			return err
		}
		return local.NudgeIdentityLeases(ctx, cfg, s.Name)
	}
	return nil
}

// members are the running apiservers, probed as the admin.
func (c *Cluster) members() []discovery.Member {
	var out []discovery.Member
	for _, s := range c.Servers {
		if n := c.control[s.Name]; n != nil && !n.running() {
			continue
		}
		cfg, err := c.RestConfig(s.Name, Admin)
		if err != nil {
			continue
		}
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			continue
		}
		url := s.URL
		out = append(out, discovery.Member{Name: s.Name, MustReach: s.PeerProxy,
			Served: func(ctx context.Context) (discovery.Set, error) { return discovery.Served(ctx, cfg) },
			List:   func(ctx context.Context, path string) (int, error) { return status(ctx, hc, url+path) }})
	}
	return out
}

var _ framework.NetNode = (*nodeServer)(nil)
