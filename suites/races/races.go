// Package races is the profile of the registration races of upstream's Mixed Version
// Proxy (scenarios/races) run from inside the suites: requests keep arriving through one
// server for a GVR only its peer serves while the peer registers, crashes, restarts or
// loses its identity lease. Each test asserts the outcome upstream documents and reports
// the window it measured.
//
// The races act on how the proxies register their servers with one another: kube-apiserver
// identity leases on upstream targets, or what a target declares (framework.Registrar:
// the reference peer proxy's front declares its own leases). A target that declares
// nothing, and is not upstream, skips the profile, missing Registration.
package races

import (
	"context"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	scenario "github.com/skewcheck/skewcheck/scenarios/races"
)

// Profile is this suite's profile name.
const Profile = "races"

var needs = []framework.Feature{framework.FeatureSkew, framework.FeatureNodeControl, framework.FeatureRegistration}

// Tests is the profile, as data. Since 1.35: the outcomes are those of 1.35 and later
// (graceful stop deletes the lease, peer-aggregated discovery).
var Tests = []framework.Test{
	{ID: "RACE-001", Profile: Profile, Since: "1.35", Features: needs,
		Description: "a request arriving while the only peer serving its GVR registers gets 404 while the peer is not registered (upstream: has no identity lease), 404 or 503 until the entry knows the peer, then 200 within the converge bound and nothing but 200 after it; the window is measured",
		Makes:       framework.NoWrites, Run: race(scenario.Registering)},
	{ID: "RACE-002", Profile: Profile, Since: "1.35", Features: needs,
		Description: "while a crashed peer's registration (upstream: its identity lease) is still valid, requests for what only it serves get 503, never 404",
		Makes:       framework.NoWrites, Run: race(scenario.StaleLease)},
	{ID: "RACE-003", Profile: Profile, Since: "1.35", Features: needs,
		Description: "a peer restarting with the same identity gives 503 and never 404 while its old registration stands, then 200; the window, and any 404 just after the first 200, are measured",
		Makes:       framework.NoWrites, Run: race(scenario.SameIdentity)},
	{ID: "RACE-004", Profile: Profile, Since: "1.35", Features: needs,
		Description: "when the peer's registration (upstream: its identity lease) is deleted, requests get 200 again within 20 s (the peer registers again at its next renewal), with no answer but 200, 404 or 503 in between; the 404 window is measured",
		Makes:       []framework.Write{expired}, Run: race(scenario.LeaseDeleted)},
	{ID: "RACE-005", Profile: Profile, Since: "1.35", Features: needs,
		Description: "a registration of a server that does not exist does not disturb requests: it names an address where nothing listens (upstream: an identity lease, which carries no address the proxy dials, so a peer it cannot reach at all)",
		// The forged registration is no server's, and no real server is acted on: any
		// proxied route shows whether it disturbs requests, also one whose GVR two servers
		// serve (three servers or more), where a sole route may not exist.
		Makes: []framework.Write{forged}, Run: raceOn(anyRoute, scenario.DeadAddress)},
}

// soleRoute is a route into a GVR one server serves alone: each race but RACE-005 acts on
// that server (the route's peer) and its registration, and its documented outcome (404
// while unregistered, 503 while a crashed lease stands) holds only when no other server
// serves the GVR. With three servers or more, a GVR the entry lacks may be served by two
// others, and upstream's proxy picks one of them at random for each request: a race on
// one would meet 200s from the other.
func soleRoute(t *framework.Target) framework.Route {
	routes := framework.SoleRoutes(t, "list")
	if len(routes) == 0 {
		framework.SkipMissing(framework.FeatureSkew, "no GVR skewcheck can create and list is served by exactly one endpoint, so there is no registration to race with: "+
			framework.NoRoutes(t, "list"))
	}
	return routes[0]
}

// anyRoute is a route into a GVR the entry lacks and some other server serves.
func anyRoute(t *framework.Target) framework.Route {
	routes := framework.Routes(t, "list")
	if len(routes) == 0 {
		framework.SkipMissing(framework.FeatureSkew, framework.NoRoutes(t, "list"))
	}
	return routes[0]
}

func race(run func(context.Context, scenario.Env) scenario.Outcome) func(context.Context, *framework.Env) {
	return raceOn(soleRoute, run)
}

func raceOn(route func(*framework.Target) framework.Route, run func(context.Context, scenario.Env) scenario.Outcome) func(context.Context, *framework.Env) {
	return func(ctx context.Context, env *framework.Env) {
		r := route(env.Target)
		converge := env.Target.Converge
		if converge == nil {
			converge = func(context.Context) error { return nil }
		}
		ginkgo.DeferCleanup(func(ctx context.Context) {
			Expect(converge(ctx)).To(Succeed(), "converging after the race")
		})
		o := run(ctx, scenario.Env{Route: r, Converge: converge, Interval: 100 * time.Millisecond,
			Observe: 3 * time.Second, Hold: env.Timeouts.Hold, Bound: env.Timeouts.Converge, Registrar: env.Target.Registrar})
		ginkgo.AddReportEntry("seen", o.Seen)
		env.Measure("windowSeconds", o.Window)
		env.Measure("spurious404", float64(o.Spurious404))
		env.Measure("held503Seconds", o.Held503)
		Expect(o.Violations).To(BeEmpty(), "documented: %s; seen: %s; %s", o.Documented, o.Seen, strings.Join(o.Violations, "; "))
	}
}
