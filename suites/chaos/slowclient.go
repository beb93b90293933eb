package chaos

import (
	"context"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	scenario "github.com/skewcheck/skewcheck/scenarios/chaos"
)

// slowClientsFor is how long CHAOS-006 holds its slow clients: long enough to catch a front
// that makes others wait behind them (the chaos verdict's 5 s stall), shorter than any
// front's header timeout, to keep the profile quick. When fronts cut slow connections is
// measured by `skewcheck chaos --fault slow-client`, which holds them 65 s (docs/chaos.md).
const slowClientsFor = 10 * time.Second

// slowClients: slow-loris connections to the entry (the slow-client fault) while the load
// runs on connections of its own; the load must not notice, by the chaos verdict: every
// answer a success, none slower than its bound, nothing lost.
func slowClients(ctx context.Context, env *framework.Env) {
	o, f, _ := measure(ctx, env, loadRoute(env.Target), "slow-client", scenario.Options{For: slowClientsFor})
	env.Measure("slowestRequestSeconds", o.SlowestAnswer)
	ginkgo.AddReportEntry("note", strings.Join(o.Observed, "; "))
	Expect(scenario.Violations([]scenario.Outcome{o})).To(BeEmpty(), "%s: other clients noticed (answers by status: %v)", f.Description(), o.Statuses)
}

// loadRoute is a route into a creatable GVR the entry lacks, for a load that must go
// unnoticed: the fault acts on the entry's clients, not on any server, so the GVR need not
// be served by one server alone (soleRoute). With three servers or more every GVR one lacks
// may be served by two others (1.35.4 + 1.36.3 + 1.36.3); requiring one server alone would
// skip the test there for nothing. Every server that serves the GVR is healthy, so
// whichever the proxy picks must answer.
func loadRoute(t *framework.Target) framework.Route {
	routes := framework.Routes(t, "create", "list", "get")
	if len(routes) == 0 {
		framework.SkipMissing(framework.FeatureSkew, framework.NoRoutes(t, "create", "list", "get"))
	}
	return routes[0]
}
