// Package front puts a proxy in front of the apiservers of a local cluster and hands back
// the target the suites test. The proxy is a product (reference/...), which knows nothing
// of clusters or targets; the harness's half of the job, making certificates, choosing
// addresses, tying the proxy's fate to its apiserver's, is here.
package front

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// PeerProxy puts a reference peer proxy in front of every apiserver of a local cluster and
// returns the target the suites test: the proxies are the endpoints; stopping, killing or
// freezing an endpoint acts on its apiserver and, like a sidecar sharing its fate, on its
// proxy. Each proxy listens on its apiserver's address block at host 30+N, same port.
func PeerProxy(ctx context.Context, c *local.Cluster, peerTimeout time.Duration) (*framework.Target, func(), error) {
	return PeerProxyFlawed(ctx, c, peerTimeout, peerproxy.NoFlaw)
}

// PeerProxyFlawed is PeerProxy with every proxy deliberately wrong in the way flaw says: to
// show that the suites catch it.
func PeerProxyFlawed(ctx context.Context, c *local.Cluster, peerTimeout time.Duration, flaw peerproxy.Flaw) (*framework.Target, func(), error) {
	var nodes []*node
	stop := func() {
		for _, n := range nodes {
			n.StopSidecar(false)
		}
	}
	t := &framework.Target{Kind: "reference:peerproxy"}
	if flaw != peerproxy.NoFlaw {
		t.Kind += "-" + string(flaw)
	}
	// Who the users are to the apiservers themselves: what a proxied request must carry.
	direct, err := c.Target(ctx)
	if err != nil {
		return nil, nil, err
	}
	leases := map[string]string{} // endpoint -> its proxy's lease
	t.Registrar = referenceRegistrar(c, leases)
	for i, s := range c.Servers {
		listen, err := c.HarnessAddress(30 + i + 1)
		if err != nil {
			stop()
			return nil, nil, err
		}
		serving, err := c.PKI.ServingCert("peerproxy-"+s.Name, nil, []net.IP{net.ParseIP(listen)})
		if err != nil {
			stop()
			return nil, nil, err
		}
		n := &node{cfg: peerproxy.Config{
			ID: c.Name + "-" + s.Name, Listen: fmt.Sprintf("%s:%d", listen, s.Port),
			ServingCert: serving.CertFile, ServingKey: serving.KeyFile, ClientCA: c.PKI.CA.CertFile,
			APIServer: s.URL(), ServerCA: c.PKI.CA.CertFile,
			FrontProxyCert: c.PKI.FrontProxyClient.CertFile, FrontProxyKey: c.PKI.FrontProxyClient.KeyFile,
			ControlCert: c.PKI.Admin.CertFile, ControlKey: c.PKI.Admin.KeyFile, PeerTimeout: peerTimeout, Flaw: flaw,
		}}
		if s.PeerPath != nil {
			n.cfg.AdvertiseURL = "https://" + s.PeerPath.Address
		}
		if err := n.StartSidecar(ctx); err != nil {
			stop()
			return nil, nil, err
		}
		nodes = append(nodes, n)
		leases["peerproxy-"+s.Name] = peerproxy.LeaseName(n.cfg.ID)
		admin, user := c.RestConfig(s, local.Admin), c.RestConfig(s, local.Unprivileged)
		admin.Host, user.Host = n.proxy.URL(), n.proxy.URL()
		t.Endpoints = append(t.Endpoints, &framework.Endpoint{
			Name: "peerproxy-" + s.Name, URL: n.proxy.URL(), Admin: admin, User: user,
			AuditLog: s.AuditLog(), Log: s.Log(), Node: &local.Fronted{Server: s, Sidecar: n},
			UserName: direct.Endpoints[i].UserName, UserGroups: direct.Endpoints[i].UserGroups,
			UserUID: direct.Endpoints[i].UserUID, UserExtra: direct.Endpoints[i].UserExtra,
		})
	}
	t.Converge = func(ctx context.Context) error {
		// Every proxy must know every other server itself: reachability alone could be
		// the fronted apiserver's own proxy answering.
		if err := waitPeers(ctx, nodes, 90*time.Second); err != nil {
			return err
		}
		return framework.WaitReachable(ctx, t, 90*time.Second)
	}
	if err := t.Converge(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("reference proxies: %w", err)
	}
	if err := t.Refresh(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return t, stop, nil
}

// node is the reference proxy in front of one apiserver (local.Fronted makes them share a
// fate).
type node struct {
	cfg   peerproxy.Config
	proxy *peerproxy.Proxy
}

func (n *node) Running() bool { return n.proxy != nil }

func (n *node) StartSidecar(ctx context.Context) error {
	p, err := peerproxy.Start(ctx, n.cfg)
	if err != nil {
		return err
	}
	n.proxy = p
	return nil
}

// StopSidecar shuts the proxy down gracefully (its lease goes) or, as a crash, closes it.
func (n *node) StopSidecar(graceful bool) {
	if n.proxy == nil {
		return
	}
	if graceful {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n.proxy.Shutdown(ctx)
	} else {
		n.proxy.Close()
	}
	n.proxy = nil
}

func waitPeers(ctx context.Context, nodes []*node, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		missing := ""
		for _, n := range nodes {
			if n.proxy != nil && n.proxy.Peers() < len(nodes)-1 {
				missing += fmt.Sprintf(" %s knows %d of %d peers;", n.cfg.ID, n.proxy.Peers(), len(nodes)-1)
			}
		}
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("reference proxies did not find each other within %v:%s check their apiservers' serving certificates (SAN kubernetes.default.svc) and leases", timeout, missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
