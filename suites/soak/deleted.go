package soak

import (
	"context"
	"fmt"
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
// merged /apis is compared with the union of every server's own (nopeer) view: what
// merged lists must be served by some server. The extensions are every server's own, so
// once deleted no nopeer view lists them, and a merged view that does has brought them
// back from a stale record.
func deletedStaysDeleted(ctx context.Context, env *framework.Env) {
	eps := env.Target.Endpoints
	// The newest server restarts (the last, in --versions order): at its start it reads
	// every peer's discovery, which then lists both extensions, so a server that keeps
	// what it read (upstream from 1.36) has both to bring back.
	origin, restarted := eps[0], eps[len(eps)-1]
	crd := fixtures.CustomGVR(uniqueName("soak"))
	agg := fixtures.AggregatedGVR(uniqueName("soak"))

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
	awaitOwnedByAll(ctx, env, crd, agg)

	restart(ctx, env, restarted)
	awaitOwnedByAll(ctx, env, crd, agg)

	// Each deletion's time is taken before its request: no server can have seen it
	// earlier, so a grace that runs from a server's seeing it ends after this time plus
	// the grace, never before.
	deletedAt := map[string]time.Time{crd.GroupVersion(): time.Now()}
	Expect(framework.DeleteCRD(ctx, origin, crd).Status).To(BeElementOf(200, 202), "deleting the CRD of %s through %s", crd.Key(), origin.Name)
	crdLeft, deletedAt[agg.GroupVersion()] = false, time.Now()
	Expect(api.Remove(ctx, origin)).To(Succeed())
	apiLeft = false
	for _, g := range []disc.GVR{crd, agg} {
		Expect(framework.AwaitGroupVersionGone(ctx, eps, g, env.Timeouts.Converge)).To(BeEmpty(),
			"servers still listing %s %v after its deletion", g.GroupVersion(), env.Timeouts.Converge)
	}

	seen := watchListedUnserved(ctx, env, deletedAt[crd.GroupVersion()].Add(deletedHold))
	for _, e := range eps {
		obs := framework.Observation{At: e, Figures: map[string]float64{"listed": float64(len(seen[e]))}}
		var listed []string
		first := time.Time{}
		for gv, at := range seen[e] {
			listed = append(listed, gv)
			if first.IsZero() || at.Before(first) {
				first = at
			}
			if deleted, ok := deletedAt[gv]; ok {
				after := at.Sub(deleted).Seconds()
				if obs.Figures["deleted"] == 0 || after < obs.Figures["firstSeconds"] {
					obs.Figures["firstSeconds"] = after
				}
				obs.Figures["deleted"]++
			}
		}
		slices.Sort(listed)
		if obs.Figures["deleted"] > 0 {
			env.Measure("returnedAfterSeconds", obs.Figures["firstSeconds"])
		}
		env.Deviation(obs, func() {
			Expect(listed).To(BeEmpty(), "%s's merged /apis lists group-versions no server's nopeer view lists, from %.0f s after the CRD %s and the aggregated API %s were deleted (%s restarted while they stood)",
				e.Name, first.Sub(deletedAt[crd.GroupVersion()]).Seconds(), crd.GroupVersion(), agg.GroupVersion(), restarted.Name)
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
	Expect(e.Node.Start(ctx)).To(Succeed(), "starting %s again", e.Name)
	down = false
	if env.Target.Converge != nil {
		Expect(env.Target.Converge(ctx)).To(Succeed(), "converging after restarting %s", e.Name)
	}
}

// awaitOwnedByAll waits until every server's own (nopeer) view lists each of gs.
func awaitOwnedByAll(ctx context.Context, env *framework.Env, gs ...disc.GVR) {
	for _, e := range env.Target.Endpoints {
		Eventually(func() []string {
			own := groupVersions(fetch(ctx, e, disc.AggregatedV2NoPeer))
			var missing []string
			for _, g := range gs {
				if !own[g.GroupVersion()] {
					missing = append(missing, g.GroupVersion())
				}
			}
			return missing
		}).WithTimeout(env.Timeouts.Converge).WithPolling(200*time.Millisecond).Should(BeEmpty(), "group-versions %s's own (nopeer) /apis does not list", e.Name)
	}
}

// watchListedUnserved compares, every pollEvery until `until`, each server's merged
// /apis with the union of every server's own view, and returns what each listed beyond
// it: each group-version with when it was first seen. It watches to the end, so that what
// comes back later than the first is in the verdict too. Each round reads the merged
// views first: nothing is being deleted meanwhile, so a group-version served when merged
// was read is still served when nopeer is.
func watchListedUnserved(ctx context.Context, env *framework.Env, until time.Time) map[*framework.Endpoint]map[string]time.Time {
	const pollEvery = 5 * time.Second
	out := map[*framework.Endpoint]map[string]time.Time{}
	for time.Now().Before(until) {
		now := time.Now()
		merged := map[*framework.Endpoint]map[string]bool{}
		for _, e := range env.Target.Endpoints {
			merged[e] = groupVersions(fetch(ctx, e, disc.AggregatedV2))
		}
		served := map[string]bool{}
		for _, e := range env.Target.Endpoints {
			for gv := range groupVersions(fetch(ctx, e, disc.AggregatedV2NoPeer)) {
				served[gv] = true
			}
		}
		for e, m := range merged {
			for gv := range m {
				if _, seen := out[e][gv]; !served[gv] && !seen {
					if out[e] == nil {
						out[e] = map[string]time.Time{}
					}
					out[e][gv] = now
				}
			}
		}
		time.Sleep(time.Until(now.Add(pollEvery)))
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

// uniqueName is prefix and a number, a valid DNS label: a group of the test's own.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}
