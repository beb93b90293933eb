package proxystate

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// noPeerOnly is what Proxying says when the skew leaves nothing to ask.
const noPeerOnly = "no GVR only a peer serves"

// probe asks e for the first listable GVR of routes (the GVRs only its peers serve), as any
// client would: proxied (the peer's list, 200) means the proxy is active; 404 (upstream's
// answer when no server it knows serves the group-version or resource) means it is inert.
func probe(ctx context.Context, e *framework.Endpoint, routes []framework.Route) report.Finding {
	var route *framework.Route
	for i := range routes {
		if routes[i].GVR.Can("list") {
			route = &routes[i]
			break
		}
	}
	if route == nil {
		why := noPeerOnly
		if len(routes) > 0 {
			why = noPeerOnly + " can be listed"
		}
		return report.Finding{State: report.CannotTell, Evidence: why}
	}
	path := route.GVR.Path() + "?limit=1"
	a := get(ctx, e.Admin, path, "application/json", nil)
	said := fmt.Sprintf("GET %s, which %s serves: %s", path, route.PeerNames(), a)
	switch a.code {
	case 200:
		return report.Finding{State: report.ProxyActive, Evidence: said}
	case 404:
		return report.Finding{State: report.ProxyInert, Evidence: said}
	case 503:
		// Upstream answers 503 when it tried a peer and could not reach it: the proxy is
		// there, the peer path is not.
		return report.Finding{State: report.ProxyActive, Evidence: said + " (it tried the peer and could not reach it)"}
	}
	return report.Finding{State: report.CannotTell, Evidence: said}
}
