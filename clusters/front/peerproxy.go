// Package front puts a proxy in front of the apiservers of a cluster and hands back the
// target the suites test. The proxy is a product (reference/...), which knows nothing
// of clusters or targets; the harness's half of the job, making certificates, choosing
// addresses, tying the proxy's fate to its apiserver's, is here.
package front

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// PeerProxy is the reference peer proxy as a front: one proxy in front of every apiserver,
// each with the flaw asked for (NoFlaw: none; a flawed one shows that the suites catch
// it). The proxies are the target's endpoints; stopping, killing or freezing an endpoint
// acts on its apiserver and, like a sidecar sharing its fate, on its proxy. Each proxy
// listens at its apiserver's front address (FrontSite.ServerFrontAddress), on its
// apiserver's port.
type PeerProxy struct {
	PeerTimeout time.Duration
	Flaw        peerproxy.Flaw
}

func (PeerProxy) Capability() clusters.Capability { return clusters.Fronts }

func (p PeerProxy) Put(ctx context.Context, site *clusters.FrontSite) (*framework.Target, func(), error) {
	var nodes []*node
	stop := func() {
		for _, n := range nodes {
			n.StopSidecar(false)
		}
	}
	t := &framework.Target{Kind: "reference:peerproxy"}
	if p.Flaw != peerproxy.NoFlaw {
		t.Kind += "-" + string(p.Flaw)
	}
	leases := map[string]string{} // endpoint -> its proxy's lease
	t.Registrar = referenceRegistrar(site, leases)
	for i, s := range site.Servers {
		listen, err := site.ServerFrontAddress(i)
		if err != nil {
			stop()
			return nil, nil, err
		}
		cert, key, err := site.ServingCert("peerproxy-"+s.Name, nil, []net.IP{net.ParseIP(listen)})
		if err != nil {
			stop()
			return nil, nil, err
		}
		n := &node{cfg: peerproxy.Config{
			ID: site.Name + "-" + s.Name, Listen: net.JoinHostPort(listen, strconv.Itoa(s.Port)),
			ServingCert: cert, ServingKey: key, ClientCA: site.CA,
			APIServer: s.URL, ServerCA: site.CA, AdvertiseURL: s.Advertise,
			FrontProxyCert: site.FrontProxyCert, FrontProxyKey: site.FrontProxyKey,
			ControlCert: site.AdminCert, ControlKey: site.AdminKey, PeerTimeout: p.PeerTimeout, Flaw: p.Flaw,
		}}
		if err := n.StartSidecar(ctx); err != nil {
			stop()
			return nil, nil, err
		}
		nodes = append(nodes, n)
		name := "peerproxy-" + s.Name
		leases[name] = peerproxy.LeaseName(n.cfg.ID)
		t.Endpoints = append(t.Endpoints, Endpoint(site, i, name, n.proxy.URL(), s.Fronted(n)))
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

// node is the reference proxy in front of one apiserver (FrontServer.Fronted makes them share
// a fate).
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

// ProxyClientFiles is the front-proxy client certificate the reference presents to the
// apiservers, which it reads again when it changes (reference/peerproxy/keypair.go): what
// a certificate fault on the entry rotates (local.CertSidecar).
func (n *node) ProxyClientFiles() pki.Pair {
	return pki.Pair{CertFile: n.cfg.FrontProxyCert, KeyFile: n.cfg.FrontProxyKey}
}
