package framework

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// Route is a request path the proxy must take: a GVR that Entry does not serve and Peer does.
// Peers are every server that serves it, Peer first: with three servers or more, two may
// (an HA control plane mid-upgrade has two of one version), and a proxy may choose either,
// so where a proxied request went is asked of Peers, never of Peer alone.
type Route struct {
	Entry, Peer *Endpoint
	Peers       []*Endpoint
	GVR         discovery.GVR
}

// String names the route as a reader wants it: "batch/v1/jobs: apiserver-1 -> apiserver-2".
func (r Route) String() string {
	return fmt.Sprintf("%s: %s -> %s", r.GVR.Key(), r.Entry.Name, r.Peer.Name)
}

// SkewedGVRs lists every route of the target, in a stable order.
func SkewedGVRs(t *Target) []Route {
	var out []Route
	for _, entry := range t.Endpoints {
		var peers []discovery.Set
		for _, p := range t.Endpoints {
			if p != entry {
				peers = append(peers, p.Served)
			}
		}
		for _, g := range entry.Served.Missing(discovery.Union(peers...)).Sorted() {
			r := Route{Entry: entry, GVR: g}
			for _, p := range t.Endpoints {
				if p != entry && p.Served.Has(g.Key()) {
					r.Peers = append(r.Peers, p)
				}
			}
			r.Peer = r.Peers[0]
			out = append(out, r)
		}
	}
	return out
}

// Routes returns the routes whose GVR supports every verb and has a fixture, so a test can
// create objects of it; one route per entry endpoint and GVR.
func Routes(t *Target, verbs ...string) []Route {
	var out []Route
	for _, r := range SkewedGVRs(t) {
		ok := fixtures.Has(r.GVR)
		for _, v := range verbs {
			ok = ok && r.GVR.Can(v)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// PeerAuditLogs reports whether every server that serves the route's GVR has an audit log
// skewcheck can read, so PeerAuditEvents can say where a proxied request went.
func (r Route) PeerAuditLogs() bool {
	for _, p := range r.peers() {
		if p.AuditLog == "" {
			return false
		}
	}
	return true
}

// PeerAuditEvents returns the audit events of the request with auditID at every server
// that serves the route's GVR, waiting up to wait for the first to appear: the proxy may
// send the request to any of them. A request proxied once has exactly one.
func (r Route) PeerAuditEvents(ctx context.Context, auditID string, wait time.Duration) ([]AuditEvent, error) {
	deadline := time.Now().Add(wait)
	for {
		var all []AuditEvent
		for _, p := range r.peers() {
			events, err := p.AuditEvents(ctx, auditID, 0)
			if err != nil {
				return nil, err
			}
			all = append(all, events...)
		}
		if len(all) > 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return all, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// peers are Peers, or Peer alone for a route written out by hand with Peer only.
func (r Route) peers() []*Endpoint {
	if len(r.Peers) == 0 && r.Peer != nil {
		return []*Endpoint{r.Peer}
	}
	return r.Peers
}

// PeerNames names the servers that serve the route's GVR, for a message.
func (r Route) PeerNames() string { return EndpointNames(r.peers()) }

// EndpointNames are the endpoints' names, comma-separated, for a message.
func EndpointNames(es []*Endpoint) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// ServedBy lists the endpoints that serve the route's GVR themselves.
func (r Route) ServedBy(t *Target) []*Endpoint {
	var out []*Endpoint
	for _, e := range t.Endpoints {
		if e.Served.Has(r.GVR.Key()) {
			out = append(out, e)
		}
	}
	return out
}

// SoleRoutes are the Routes whose GVR exactly one endpoint serves, the route's Peer: when
// that peer fails, no other server can answer for it.
func SoleRoutes(t *Target, verbs ...string) []Route {
	var out []Route
	for _, r := range Routes(t, verbs...) {
		if len(r.ServedBy(t)) == 1 {
			out = append(out, r)
		}
	}
	return out
}

// StatusRoutes are the Routes of GVRs with a status subresource that skewcheck can create
// and get.
func StatusRoutes(t *Target) []Route {
	var out []Route
	for _, r := range Routes(t, "create", "get") {
		if slices.Contains(r.GVR.Subresources, "status") {
			out = append(out, r)
		}
	}
	return out
}

// NoRoutes says why Routes(t, verbs...) is empty, naming every skewed GVR and what it
// lacks, for a test to skip with.
func NoRoutes(t *Target, verbs ...string) string {
	return fmt.Sprintf("no GVR one endpoint lacks and another serves supports %s and has an object skewcheck can create (%s)",
		strings.Join(verbs, ", "), describeSkew(t))
}

// describeSkew lists the skewed GVRs (once each, whatever the entry) and, for those
// skewcheck cannot create, why.
func describeSkew(t *Target) string {
	seen := map[string]bool{}
	var out []string
	for _, r := range SkewedGVRs(t) {
		if seen[r.GVR.Key()] {
			continue
		}
		seen[r.GVR.Key()] = true
		s := r.GVR.Key()
		if !fixtures.Has(r.GVR) {
			s += " (skewcheck has no fixture for it)"
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "every endpoint serves the same GVRs"
	}
	return "skewed: " + strings.Join(out, ", ")
}
