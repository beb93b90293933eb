// Package chaos is the profile of the Mixed Version Proxy under faults, the chaos scenarios
// run from inside the suites: a process fault hits the only server that serves a GVR while
// a seeded load reads and writes it through another server (scenarios/chaos). The seed is
// ginkgo's, which the report carries, so a failing night replays with --seed.
package chaos

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	scenario "github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Profile is this suite's profile name.
const Profile = "chaos"

var needs = []framework.Feature{framework.FeatureSkew, framework.FeatureNodeControl}

// stoppedFor is how long a gracefully stopped peer stays down under load.
const stoppedFor = 8 * time.Second

// Tests is the profile, as data.
var Tests = []framework.Test{
	{ID: "CHAOS-001", Profile: Profile, Since: "1.28", Features: needs,
		Description: "while the only server serving a GVR is crashed, requests for it through another server get 503, never 404, no acknowledged write is lost, and they succeed again once it restarts",
		Run:         underFault("crash", true)},
	{ID: "CHAOS-002", Profile: Profile, Since: "1.28", Features: needs,
		Description: "while the only server serving a GVR is frozen, requests for it through another server get 503 within the unavailable bound, never 404, no acknowledged write is lost, and they succeed again once it thaws",
		Run:         underFault("freeze", true)},
	{ID: "CHAOS-003", Profile: Profile, Since: "1.28", Features: needs,
		Description: "when the only server serving a GVR stops gracefully, no acknowledged write is lost and requests succeed again once it restarts; the 404s after it left, and their window, are measured",
		Run:         underFault("stop", false)},
}

// underFault measures one fault on the peer of a route only that peer serves. want503 says
// the peer is still registered during the fault (crash, freeze), so 503 is the only honest
// answer; a gracefully stopped peer has left, and 404 is what upstream promises.
func underFault(name string, want503 bool) func(context.Context, *framework.Env) {
	return func(ctx context.Context, env *framework.Env) {
		route := soleRoute(env.Target)
		f, err := faults.ByName(name, faults.Subject{Endpoint: route.Peer})
		Expect(err).NotTo(HaveOccurred())
		if env.Target.Converge != nil {
			ginkgo.DeferCleanup(func(ctx context.Context) {
				Expect(env.Target.Converge(ctx)).To(Succeed(), "converging after %s", f.Description())
			})
		}
		// A registered peer must answer 503 within the unavailable bound, and the load ends
		// soon after; a peer that left is loaded for a fixed while.
		opts := scenario.Options{For: stoppedFor, Interval: 200 * time.Millisecond,
			Recover: env.Timeouts.Converge, Seed: ginkgo.GinkgoRandomSeed()}
		if want503 {
			opts.For, opts.EndAfter503 = env.Timeouts.Unavailable, 2*time.Second
		}
		o := scenario.Measure(ctx, env.Target.Kind, route, f, opts)
		ginkgo.AddReportEntry("fault", f.Description()+" during a load through "+route.Entry.Name+" for "+route.GVR.Key())
		Expect(o.Skipped).To(BeEmpty())
		env.Measure("timeTo503Seconds", o.TimeTo503)
		env.Measure("timeToRecoverSeconds", o.TimeToRecover)
		env.Measure("spurious404", float64(o.Spurious404))
		env.Measure("left404", float64(o.Left404))
		env.Measure("window404Seconds", o.Window404)
		env.Measure("lostWrites", float64(o.LostWrites))
		Expect(o.Error).To(BeEmpty(), "%s: %s", f.Description(), o.Error)
		if want503 {
			Expect(o.TimeTo503).To(And(BeNumerically(">=", 0), BeNumerically("<=", env.Timeouts.Unavailable.Seconds())),
				"%s: no 503 through %s within %s (answers by status: %v)", f.Description(), route.Entry.Name, env.Timeouts.Unavailable, o.Statuses)
			Expect(o.Spurious404).To(BeZero(), "%s: %d requests got 404 for %s although its server is still registered (answers by status: %v)", f.Description(), o.Spurious404, route.GVR.Key(), o.Statuses)
		}
		Expect(o.LostWrites).To(BeZero(), "%s: %d of %d acknowledged writes are missing afterwards", f.Description(), o.LostWrites, o.AckedWrites)
	}
}

// soleRoute is a route into a creatable GVR exactly one server serves.
func soleRoute(t *framework.Target) framework.Route {
	routes := framework.SoleRoutes(t, "create", "list", "get")
	if len(routes) == 0 {
		ginkgo.Fail("no creatable GVR is served by exactly one endpoint: nothing to fault")
	}
	return routes[0]
}
