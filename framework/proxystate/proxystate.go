// Package proxystate reads the Mixed Version Proxy's state at each server of a target,
// before any test: the gate, whether the server built its proxy, whether it proxies a
// request only a peer can serve, whether its discovery merges its peers', and the address
// its identity lease gives them (and, from inside the cluster, whether that address
// answers TLS as peers verify it). One cause explains most failures on real clusters:
// kubeadm never sets --peer-ca-file, and without it upstream builds no proxy even where the
// gate is on by default (1.36+); each server then answers 404 for what only a peer serves.
// The result is a report.ProxyState, whose verdict names that cause once, with its fix.
//
// Every request is read-only and made as a plain client with the endpoint's admin
// identity; Read works on any framework.Target (local, kind, containers, existing, fronted).
package proxystate

import (
	"cmp"
	"context"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/report"
)

// RequestTimeout bounds each request, and Budget all of Read: the reads of every server
// run at once, then at most one more (how the cluster was made) beside the handshakes with
// their peer addresses (DialTimeout), so a server that never answers costs a run seconds,
// not its --timeout-converge.
const (
	RequestTimeout = 4 * time.Second
	Budget         = 9 * time.Second
)

// Read reads the proxy's state at every endpoint of t, whose Served sets must be read
// (Target.Refresh, which every provider's target has had). It never fails: what cannot be
// read is "cannot tell", with why.
func Read(ctx context.Context, t *framework.Target) *report.ProxyState {
	ctx, cancel := context.WithTimeout(ctx, Budget)
	defer cancel()
	routes := framework.SkewedGVRs(t)
	p := &report.ProxyState{Servers: make([]report.ProxyServer, len(t.Endpoints))}
	var (
		wg       sync.WaitGroup
		leases   []coordinationv1.Lease
		leaseErr error
	)
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	for i, e := range t.Endpoints {
		s, server, mine := &p.Servers[i], serverConfig(e), entryRoutes(routes, e)
		peerOnly := gvrsOf(mine)
		*s = report.ProxyServer{Name: e.Name, Version: e.Version, Behind: e.Behind, PeerOnly: keys(peerOnly)}
		run(func() { s.Gate = readGate(ctx, server, e) })
		run(func() { s.PeerProxy = readHook(ctx, server) })
		run(func() { s.Proxying = probe(ctx, e, mine) })
		run(func() { s.Discovery = readDiscovery(ctx, e, peerOnly) })
	}
	if len(t.Endpoints) > 0 {
		run(func() { leases, leaseErr = listLeases(ctx, serverConfig(t.Endpoints[0])) })
	}
	wg.Wait()
	// The handshakes run beside judge, which never reads their findings: each writes its
	// own, set on its server once judge is done.
	peerTLS := make([]report.Finding, len(t.Endpoints))
	for i, e := range t.Endpoints {
		setLease(&p.Servers[i], e, serverConfig(e).Host, leases, leaseErr)
		address := p.Servers[i].PeerAdvertiseAddress
		run(func() { peerTLS[i] = checkPeerTLS(ctx, serverConfig(e), address) })
	}
	judge(p, func() maker {
		if t.Upstream && !t.UpstreamDeclared {
			return madeSkewcheck
		}
		if len(t.Endpoints) == 0 {
			return madeUnknown
		}
		return madeBy(ctx, serverConfig(t.Endpoints[0]))
	})
	wg.Wait()
	for i := range peerTLS {
		p.Servers[i].PeerAddressTLS = &peerTLS[i]
	}
	if t.Gateway != nil && len(p.Inert) > 0 {
		// A gateway in front routes each request to a server that serves it: the
		// apiservers' own proxy is off by design there, not the cause of anything.
		p.Verdict = "A gateway routes every request here, so the apiservers' own proxy is not needed: " + p.Verdict
		p.Inert, p.Fix, p.Issue = nil, "", ""
	}
	return p
}

// serverConfig reaches the apiserver itself: behind a front, the one the front stands
// before. Its gate, hooks and lease are the server's whatever stands in front of it.
func serverConfig(e *framework.Endpoint) *rest.Config { return cmp.Or(e.ServedFrom, e.Admin) }

// entryRoutes are the routes that enter at e: the GVRs only its peers serve.
func entryRoutes(routes []framework.Route, e *framework.Endpoint) []framework.Route {
	var out []framework.Route
	for _, r := range routes {
		if r.Entry == e {
			out = append(out, r)
		}
	}
	return out
}

func gvrsOf(routes []framework.Route) discovery.Set {
	s := discovery.Set{}
	for _, r := range routes {
		s[r.GVR.Key()] = r.GVR
	}
	return s
}
