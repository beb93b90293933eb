package mvp

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// Aggregated APIs are never a peer's either. An APIService with spec.service is in etcd, so
// every apiserver's aggregator proxies its group-version to the Service itself, once its
// own informer has the APIService; upstream leaves these group-versions out of peer routing
// and merged discovery as it does CRDs' (k8s.io/kubernetes v1.36.3
// pkg/controlplane/apiserver/aggregator.go:142-148, apiServiceExtractor :228-243: only
// APIServices with a Service; the compiled-in groups' local APIServices have none, and a
// peer may really lack those). The server behind it is framework/aggregated, on this
// machine (FeatureAggregatedAPI).

// aggregatedJustCreated: right after an APIService is created through the first endpoint,
// its resource asked through every other endpoint answers 404 (its aggregator has not yet
// seen the APIService) or 503 (it has, and its availability check has not yet reached the
// server: kube-aggregator v0.36.3 pkg/apiserver/handler_proxy.go:123-126) until 200; then
// every read 200 and every write 201 for Refused, and no request reaches another server.
func aggregatedJustCreated(ctx context.Context, env *framework.Env) {
	origin := env.Target.Endpoints[0]
	g := fixtures.AggregatedGVR(fixtures.UniqueName("mvp"))
	env.NewAggregatedAPI(ctx, g, origin, origin)
	servedByEachItself(ctx, env, g, origin,
		"until its aggregator has the APIService the honest answer is 404, and 503 until its availability check has reached the server", 404, 503)
}

// aggregatedServerDown: with the aggregated API served through every endpoint, its server
// stopped (a crashed extension apiserver): every endpoint answers 503 from the moment it is
// down, never 404 (the APIService is still there: the group-version exists, its server is
// unavailable) and never 200, for Refused, and no request reaches another server (a proxy
// that takes the failure for a reason to try a peer sends it to an aggregator that reaches
// the same server). Once the server is back, every endpoint answers 200 again within
// Converge (the aggregator's availability check is re-run on its own schedule).
func aggregatedServerDown(ctx context.Context, env *framework.Env) {
	origin := env.Target.Endpoints[0]
	g := fixtures.AggregatedGVR(fixtures.UniqueName("mvp"))
	a := env.NewAggregatedAPI(ctx, g, origin, origin)
	list := framework.Request{Path: g.CollectionPath(testNamespace()) + "?limit=1"}
	for _, e := range env.Target.Endpoints {
		s := framework.AwaitServed(ctx, e, g, 100*time.Millisecond, env.Timeouts.Converge)
		Expect(s.After).NotTo(BeZero(), "%s never answered 200 for the aggregated %s within %v (answers %v)", e.Name, g.Key(), env.Timeouts.Converge, s.Statuses)
	}
	Expect(a.Server.Stop()).To(Succeed())
	stopped := time.Now()
	ids := map[*framework.Endpoint][]string{}
	for time.Since(stopped) < env.Timeouts.Refused {
		for _, e := range env.Target.Endpoints {
			r := e.Do(ctx, list)
			Expect(r).To(framework.HaveStatus(503), "list the aggregated %s through %s %.1f s after its server stopped: the group-version still exists, its server is unavailable",
				g.Key(), e.Name, time.Since(stopped).Seconds())
			ids[e] = append(ids[e], r.AuditID)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for e, sent := range ids {
		expectServedBy(ctx, env, e, sent)
	}
	Expect(a.Server.Resume()).To(Succeed())
	resumed := time.Now()
	for _, e := range env.Target.Endpoints {
		s := framework.AwaitServed(ctx, e, g, 200*time.Millisecond, env.Timeouts.Converge)
		Expect(s.After).NotTo(BeZero(), "%s still did not answer 200 for the aggregated %s %v after its server was back (answers %v)", e.Name, g.Key(), env.Timeouts.Converge, s.Statuses)
		for i, st := range s.Statuses[:len(s.Statuses)-1] {
			Expect(st).To(Equal(503), "answer %d of %v through %s once the server was back: 503 until its aggregator has seen it again, then 200", i, s.Statuses, e.Name)
		}
	}
	env.Measure("servedAgainAfterSeconds", time.Since(resumed).Seconds())
}
