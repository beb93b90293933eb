package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// skewNever404: behind the gateway, apiservers of different versions serve different
// GVRs; a list of one some of them do not serve is answered (200), never 404, whichever
// server the gateway picks. Each request is credited to the server the gateway sent it to
// (its entry server, reachedBy): the report says how many the gateway routed to a server
// that serves the GVR, and how many it sent to one that does not, which the apiservers'
// own mixed version proxy rescued (only with --gateway-keep-peer-proxy; without it they
// are 404s and the test fails).
func skewNever404(ctx context.Context, env *framework.Env) {
	routes := framework.SkewedGVRs(env.Target)
	if len(routes) > 4 {
		routes = routes[:4]
	}
	g := env.Target.Gateway.Endpoint
	routed, rescued := 0, 0
	var notes []string
	for _, r := range routes {
		if !r.GVR.Can("list") {
			continue
		}
		var probes []probe
		for i := range 2 * len(env.Target.Endpoints) {
			probes = append(probes, probe{what: fmt.Sprintf("list %s #%d", r.GVR, i+1), req: framework.Request{Path: r.GVR.Path() + "?limit=1"}, via: g})
		}
		ids, resps := send(ctx, env, probes)
		reached := reachedBy(ctx, env, ids, 5*time.Second)
		entries := map[string]int{}
		gvrRescued := 0
		for i, resp := range resps {
			where := reached[ids[i]]
			Expect(resp).To(framework.HaveStatus(200), "%s is served by %s and not by %s: through the gateway it must be answered, never 404 (the gateway sent this request to %q)", r.GVR, r.Peer.Name, r.Entry.Name, where.entry)
			entries[where.entry]++
			if e := env.Target.Endpoint(where.entry); e != nil && !e.Served.Has(r.GVR.Key()) {
				rescued++ // the gateway sent it to a server that does not serve it, whose peer proxy passed it on
				gvrRescued++
			} else {
				routed++
			}
		}
		notes = append(notes, fmt.Sprintf("%s (only %s serves it): the gateway sent %v, %d rescued by the peer proxy", r.GVR, r.Peer.Name, entries, gvrRescued))
	}
	Expect(routed+rescued).To(BeNumerically(">", 0), "no skewed GVR can be listed")
	how := fmt.Sprintf("routes by discovery: it sent all %d requests to a server that serves the GVR", routed)
	if rescued > 0 {
		how = fmt.Sprintf("does not route by discovery: it sent %d of %d requests to a server that does not serve the GVR, and the apiservers' mixed version proxy rescued them; %d it routed to a server that serves it", rescued, routed+rescued, routed)
	}
	env.Measure("routed_by_gateway", float64(routed))
	env.Measure("rescued_by_peer_proxy", float64(rescued))
	env.Measure("routed_by_discovery", map[bool]float64{true: 1, false: 0}[rescued == 0])
	ginkgo.AddReportEntry("note", "the gateway "+how+"; "+strings.Join(notes, "; "))
}
