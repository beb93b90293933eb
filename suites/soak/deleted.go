package soak

import (
	"context"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// deletedStaysDeleted: a CRD and an aggregated API are made, a server restarts while they
// stand (so every server's record of its peers' discovery, upstream's raw peer cache,
// holds them), and both are deleted. For deletedHold after the deletion, every server's
// merged /apis must not list their group-versions while no server's own (nopeer) view
// does: they are every server's own, so once deleted no nopeer view lists them, and a
// merged view that does has brought them back from a stale record. Only the test's own
// group-versions are judged, so an extension another test deleted earlier in the same run
// cannot be taken for this test's (run the profile alone all the same: on upstream, what
// comes back stays until a restart, and this test restarts the server again when it ends).
func deletedStaysDeleted(ctx context.Context, env *framework.Env) {
	eps := env.Target.Endpoints
	// The last server restarts (in --versions order: the newest, in the clusters
	// skewcheck makes): at its start it reads every peer's discovery, which then lists
	// both extensions, so a server that keeps what it read (upstream from 1.36) has both
	// to bring back.
	origin, restarted := eps[0], eps[len(eps)-1]
	crd := fixtures.CustomGVR(fixtures.UniqueName("soak"))
	agg := fixtures.AggregatedGVR(fixtures.UniqueName("soak"))
	own := []disc.GVR{crd, agg}

	Expect(framework.CreateCRD(ctx, origin, crd)).To(Succeed())
	crdLeft := true
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if crdLeft {
			Expect(framework.DeleteCRD(ctx, origin, crd).Status).To(BeElementOf(200, 202, 404), "deleting the CRD of %s through %s", crd.Key(), origin.Name)
		}
	})
	api, err := framework.StartAggregatedAPI(ctx, env.Target, origin, agg)
	Expect(err).NotTo(HaveOccurred())
	apiLeft := true
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if apiLeft {
			Expect(api.Remove(ctx, origin)).To(Succeed())
		}
	})
	awaitOwnedByAll(ctx, env, own...)

	restart(ctx, env, restarted)
	awaitOwnedByAll(ctx, env, own...)

	// Each deletion's time is taken before its request: no server can have seen it
	// earlier, so a grace that runs from a server's seeing it ends after this time plus
	// the grace, never before.
	deletedAt := map[string]time.Time{crd.GroupVersion(): time.Now()}
	Expect(framework.DeleteCRD(ctx, origin, crd).Status).To(BeElementOf(200, 202), "deleting the CRD of %s through %s", crd.Key(), origin.Name)
	crdLeft, deletedAt[agg.GroupVersion()] = false, time.Now()
	Expect(api.Remove(ctx, origin)).To(Succeed())
	apiLeft = false
	for _, g := range own {
		Expect(framework.AwaitGroupVersionGone(ctx, eps, g, env.Timeouts.Converge)).To(BeEmpty(),
			"servers still listing %s %v after its deletion", g.GroupVersion(), env.Timeouts.Converge)
	}

	seen := watchListedUnserved(ctx, env, deletedAt, deletedAt[crd.GroupVersion()].Add(deletedHold))
	if len(seen) > 0 {
		// Upstream keeps listing what came back until the peer it read it from changes
		// its identity lease's holder: a restart, after which every server reads its
		// peers again. The next test must not meet it.
		ginkgo.DeferCleanup(func(ctx context.Context) {
			Expect(restarted.Node.Kill()).To(Succeed(), "killing %s", restarted.Name)
			startAgain(ctx, env, restarted)
			for _, g := range own {
				Expect(framework.AwaitGroupVersionGone(ctx, eps, g, env.Timeouts.Converge)).To(BeEmpty(),
					"servers listing %s, deleted and come back, %v after %s restarted again", g.GroupVersion(), env.Timeouts.Converge, restarted.Name)
			}
		})
	}
	for _, e := range eps {
		obs := framework.Observation{At: e, Figures: map[string]float64{"listed": float64(len(seen[e]))}}
		var listed []string
		for gv, at := range seen[e] {
			listed = append(listed, gv)
			after := at.Sub(deletedAt[gv]).Seconds()
			if len(listed) == 1 || after < obs.Figures["firstSeconds"] {
				obs.Figures["firstSeconds"] = after
			}
		}
		slices.Sort(listed)
		if len(listed) > 0 {
			env.Measure("returnedAfterSeconds", obs.Figures["firstSeconds"])
		}
		env.Deviation(obs, func() {
			Expect(listed).To(BeEmpty(), "%s's merged /apis lists group-versions no server's nopeer view lists, from %.1f s after their deletion: the CRD %s and the aggregated API %s, deleted after %s restarted while they stood",
				e.Name, obs.Figures["firstSeconds"], crd.GroupVersion(), agg.GroupVersion(), restarted.Name)
		})
	}
}

// restart kills e's server and starts it again, waiting for every proxy path to be live.
// A test that fails in between still leaves the server running.
func restart(ctx context.Context, env *framework.Env, e *framework.Endpoint) {
	down := true
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if down {
			Expect(e.Node.Start(ctx)).To(Succeed(), "starting %s again after the test", e.Name)
		}
	})
	Expect(e.Node.Kill()).To(Succeed(), "killing %s", e.Name)
	startAgain(ctx, env, e)
	down = false
}

// startAgain starts e's killed server and waits for every proxy path to be live.
func startAgain(ctx context.Context, env *framework.Env, e *framework.Endpoint) {
	Expect(e.Node.Start(ctx)).To(Succeed(), "starting %s again", e.Name)
	if env.Target.Converge != nil {
		Expect(env.Target.Converge(ctx)).To(Succeed(), "converging after restarting %s", e.Name)
	}
}

// awaitOwnedByAll waits until every server's own (nopeer) view lists each of gs; a read
// that fails (a server just restarted) is tried again.
func awaitOwnedByAll(ctx context.Context, env *framework.Env, gs ...disc.GVR) {
	for _, e := range env.Target.Endpoints {
		Eventually(func(g Gomega) {
			list, err := disc.Fetch(ctx, e.Admin, "/apis", disc.AggregatedV2NoPeer)
			g.Expect(err).NotTo(HaveOccurred(), "nopeer /apis of %s", e.Name)
			own := groupVersions(disc.FromList(list))
			for _, gv := range gs {
				g.Expect(own[gv.GroupVersion()]).To(BeTrue(), "%s's own (nopeer) /apis does not list %s", e.Name, gv.GroupVersion())
			}
		}).WithTimeout(env.Timeouts.Converge).WithPolling(200 * time.Millisecond).Should(Succeed())
	}
}

// watchListedUnserved watches until `until` whether a server's merged /apis lists one of
// the deleted group-versions (deletedAt's keys) while no server's own view does, and
// returns, per server, each one listed with the time the read that first listed it came
// back: it was listed by then, so a return at or after the grace is never seen before
// it. Reads come every pollEvery, and every pollNear within graceWindow of the grace,
// where an early return must be told from one on time. It watches to the end, so that
// what comes back later than the first is in the verdict too. Each round reads the merged
// views first: nothing is being deleted meanwhile, so what is served when merged was read
// is still served when nopeer is.
func watchListedUnserved(ctx context.Context, env *framework.Env, deletedAt map[string]time.Time, until time.Time) map[*framework.Endpoint]map[string]time.Time {
	const pollEvery, pollNear, graceWindow = 5 * time.Second, 500 * time.Millisecond, 15 * time.Second
	first := until
	for _, at := range deletedAt {
		if at.Before(first) {
			first = at
		}
	}
	out := map[*framework.Endpoint]map[string]time.Time{}
	for time.Now().Before(until) {
		round := time.Now()
		listed := map[*framework.Endpoint]map[string]bool{}
		readAt := map[*framework.Endpoint]time.Time{}
		for _, e := range env.Target.Endpoints {
			listed[e], readAt[e] = groupVersions(fetch(ctx, e, disc.AggregatedV2)), time.Now()
		}
		served := map[string]bool{}
		for _, e := range env.Target.Endpoints {
			for gv := range groupVersions(fetch(ctx, e, disc.AggregatedV2NoPeer)) {
				served[gv] = true
			}
		}
		for e, m := range listed {
			for gv := range deletedAt {
				if _, seen := out[e][gv]; m[gv] && !served[gv] && !seen {
					if out[e] == nil {
						out[e] = map[string]time.Time{}
					}
					out[e][gv] = readAt[e]
				}
			}
		}
		wait := pollEvery
		if d := round.Sub(first.Add(extensionGrace)); d > -graceWindow && d < graceWindow {
			wait = pollNear
		}
		select {
		case <-ctx.Done(): // the test's bound: the reads above fail it
		case <-time.After(time.Until(round.Add(wait))):
		}
	}
	return out
}

// fetch reads e's /apis (aggregated v2) with accept.
func fetch(ctx context.Context, e *framework.Endpoint, accept string) disc.Set {
	list, err := disc.Fetch(ctx, e.Admin, "/apis", accept)
	Expect(err).NotTo(HaveOccurred(), "/apis of %s (%s)", e.Name, accept)
	return disc.FromList(list)
}

// groupVersions are the group-versions ("group/version") of s.
func groupVersions(s disc.Set) map[string]bool {
	out := map[string]bool{}
	for _, g := range s {
		out[g.GroupVersion()] = true
	}
	return out
}
