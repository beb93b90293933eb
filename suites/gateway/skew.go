package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// skewNever404: behind the gateway, apiservers of different versions serve different
// GVRs; a list of one some of them do not serve is answered (200), never 404, whichever
// server the gateway picks. The gateway may route by discovery, or rely on the apiservers'
// own mixed version proxy: the audit logs tell which, and the test reports it.
func skewNever404(ctx context.Context, env *framework.Env) {
	routes := framework.SkewedGVRs(env.Target)
	if len(routes) > 4 {
		routes = routes[:4]
	}
	g := env.Target.Gateway.Endpoint
	byDiscovery, viaPeer := 0, 0
	var notes []string
	for _, r := range routes {
		if !r.GVR.Can("list") {
			continue
		}
		var probes []probe
		for i := range 2 * len(env.Target.Endpoints) {
			probes = append(probes, probe{what: fmt.Sprintf("list %s #%d", r.GVR, i+1), req: framework.Request{Path: r.GVR.Path() + "?limit=1"}, via: g})
		}
		where, resps := landings(ctx, env, probes)
		for i, resp := range resps {
			Expect(resp).To(framework.HaveStatus(200), "%s is served by %s and not by %s: through the gateway it must be answered, never 404", r.GVR, r.Peer.Name, r.Entry.Name)
			if where[i] == r.Entry.Name {
				viaPeer++ // reached a server that does not serve it, which proxied it
			} else {
				byDiscovery++
			}
		}
		notes = append(notes, fmt.Sprintf("%s (only %s serves it): %v", r.GVR, r.Peer.Name, count(where)))
	}
	Expect(byDiscovery+viaPeer).To(BeNumerically(">", 0), "no skewed GVR can be listed")
	how := "routes by discovery: every request went to a server that serves it"
	if viaPeer > 0 {
		how = fmt.Sprintf("relies on the apiservers' mixed version proxy: %d of %d requests reached a server that does not serve the GVR, which proxied it", viaPeer, viaPeer+byDiscovery)
	}
	env.Measure("routed_by_discovery", map[bool]float64{true: 1, false: 0}[viaPeer == 0])
	ginkgo.AddReportEntry("note", "the gateway "+how+"; "+strings.Join(notes, "; "))
}
