package discovery

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// crdNeverAPeers: a CRD is every server's own (they share etcd), so merged /apis lists
// its group-version only as the server's own: never while the server's nopeer view lacks
// it, however soon after the CRD's creation through another server it is asked. Upstream
// leaves CRDs' and aggregated APIServices' group-versions out of the peer discovery cache
// merged discovery reads (k8s.io/apiserver v0.36.3 pkg/util/peerproxy
// peerproxy_handler.go:285-302 GetPeerResources, gv_exclusion_manager.go:399-429; the
// exclusion's sources are k8s.io/kubernetes v1.36.3 pkg/controlplane/apiserver
// aggregator.go:213-243): PR kubernetes#135675.
//
// Each round reads merged, then nopeer: the server's own view only grows while the CRD
// lives, so merged listing it before nopeer does means it came from a peer. Rounds go on
// until both list it, and a few more.
func crdNeverAPeers(ctx context.Context, env *framework.Env) {
	origin := env.Target.Endpoints[0]
	g := fixtures.CustomGVR(fixtures.UniqueName("disc"))
	env.NewCRD(ctx, g, origin, origin)
	listedOnlyAsOwn(ctx, env, g, origin)
}

// aggregatedNeverAPeers: as crdNeverAPeers, for an aggregated API (an APIService with a
// Service, its server framework/aggregated) registered through another server: every
// server's aggregator serves it itself, so merged /apis never lists it while nopeer lacks it.
func aggregatedNeverAPeers(ctx context.Context, env *framework.Env) {
	origin := env.Target.Endpoints[0]
	g := fixtures.AggregatedGVR(fixtures.UniqueName("disc"))
	env.NewAggregatedAPI(ctx, g, origin, origin)
	listedOnlyAsOwn(ctx, env, g, origin)
}

// listedOnlyAsOwn: g, just made through origin, is never in another endpoint's merged
// /apis before its nopeer view lists it, until both list it and a few rounds more.
//
// Every other endpoint is watched in each round, from the creation on: watched one after
// the other, a third server would be asked only once the second had listed g, by when it
// would long have established the CRD itself, and its window, the one the test is about,
// would have passed unwatched.
func listedOnlyAsOwn(ctx context.Context, env *framework.Env, g disc.GVR, origin *framework.Endpoint) {
	after := map[*framework.Endpoint]int{} // rounds left once both list it; -1 until then
	for _, e := range env.Target.Endpoints {
		if e != origin {
			after[e] = -1
		}
	}
	start := time.Now()
	slowest := 0.0
	for round := 0; len(after) > 0; round++ {
		for _, e := range env.Target.Endpoints {
			left, watched := after[e]
			if !watched {
				continue
			}
			m := merged(ctx, e).Has(g.Key())
			own, err := disc.Fetch(ctx, e.Admin, "/apis", disc.AggregatedV2NoPeer)
			Expect(err).NotTo(HaveOccurred(), "nopeer /apis of %s", e.Name)
			n := disc.FromList(own).Has(g.Key())
			Expect(m && !n).To(BeFalse(), "round %d, %.2f s after %s was made through %s: %s's merged /apis lists %s, which its own (nopeer) view does not: an extension listed as a peer's",
				round, time.Since(start).Seconds(), g.GroupVersion(), origin.Name, e.Name, g.GroupVersion())
			switch {
			case m && n && left < 0:
				after[e] = 5
				slowest = max(slowest, time.Since(start).Seconds())
			case left == 1:
				delete(after, e)
			case left > 0:
				after[e] = left - 1
			}
			if time.Since(start) >= env.Timeouts.Converge {
				// Not listed in time: upstream's stale merged cache (staleMergedCache) is the
				// one thing allowed, a merged view lacking what the nopeer view lists.
				obs := framework.Observation{At: e, Figures: map[string]float64{"merged": oneIf(m), "nopeer": oneIf(n)}}
				env.Deviation(obs, func() {
					Expect(time.Since(start)).To(BeNumerically("<", env.Timeouts.Converge), "%s never listed %s, made through %s, in both views (merged %v, nopeer %v)", e.Name, g.GroupVersion(), origin.Name, m, n)
				})
				delete(after, e)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The slowest endpoint's: with two servers, the one other's.
	env.Measure("listedAfterSeconds", slowest)
}

// oneIf is 1 for true, 0 for false: a yes or no as an Observation's figure.
func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
