// Package chaos is the profile of the Mixed Version Proxy under faults, the chaos scenarios
// run from inside the suites: a fault hits the only server that serves a GVR, or the network
// path into it, while a seeded load reads and writes it through another server
// (scenarios/chaos). The seed is ginkgo's, which the report carries, so a failing night
// replays with --seed.
package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	scenario "github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Profile is this suite's profile name.
const Profile = "chaos"

var (
	needs         = []framework.Feature{framework.FeatureSkew, framework.FeatureNodeControl}
	needsPeerPath = append(append([]framework.Feature{}, needs...), faults.PeerPath)
)

// droppedOnSync is upstream's known way to answer 404 for a registered peer: its peer
// discovery cache is rebuilt from scratch on every sync (a lease added, deleted or taking a
// new holder, or a retry of a failed sync), and a peer whose discovery cannot be fetched
// just then is left out of it although its lease stands (k8s.io/apiserver
// pkg/util/peerproxy/peer_discovery.go, syncPeerDiscoveryCache, 1.33 to 1.37.2, the newest
// release: open until a fix is seen). Whether a
// sync falls inside a fault is chance; seen once in CHAOS-001 on 1.35.4 + 1.36.3, and on
// kind after CHAOS-002's freeze (404 for more than 90 s after the thaw).
//
// What it allows is exactly that: the entry (whose cache it is) answered 404 while the
// peer was registered, every answer after the first 503 was a 503 or such a 404, nothing
// but 200, 404 and 503 was answered at all; and when recovery is what failed, the entry
// was still answering 404 when the bound ran out. A 5xx other than 503, no answer, a 503
// that never ends after healing, or any of it without the 404s is not this deviation.
var droppedOnSync = &framework.Deviation{Since: "1.33",
	Summary: "a sync of the peer discovery cache while a peer is down drops that peer although its lease stands, so its resources get 404 instead of 503, also after the peer is back, until a retry of the failed sync (its backoff doubling while the peer was down) or an identity lease change (k8s.io/apiserver peerproxy syncPeerDiscoveryCache)",
	Allowed: "404s through the entry while the only serving peer was registered (answers 200, 404 or 503 only; after the first 503 only 503 or 404), and, after healing, 404 still",
	Allows: func(o framework.Observation) bool {
		dropped := o.Figures["spurious404"] > 0 && o.Figures["otherAfterFirst503"] == 0 && o.OnlyStatuses(200, 404, 503)
		last, recovering := o.Figures["lastAfterHeal"]
		return dropped && (!recovering || last == 404)
	}}

// missedAfterStop: up to 1.34 a server retries a failed sync of its peer discovery cache 5
// times in about 160 ms, then gives up until some identity lease is added or deleted. A
// peer that stopped gracefully removed its endpoint lease, and when it restarts its new
// identity lease comes before its endpoint lease, so the sync this starts fails fast and
// the peer is left out for good: its resources get 404 (k8s.io/apiserver
// pkg/util/peerproxy/peer_discovery.go maxRetries; 20 from 1.35). Seen on 1.34.4 + 1.35.4.
// It allows exactly that: the entry still answering 404 when the recover bound ran out.
var missedAfterStop = &framework.Deviation{Since: "1.33", Until: "1.34",
	Summary: "a server of 1.33 or 1.34 gives up on a peer that restarts after a graceful stop (5 sync retries in about 160 ms, before the peer's endpoint lease is back) and answers 404 for its resources until some identity lease is added or deleted (k8s.io/apiserver peerproxy maxRetries)",
	Allowed: "404 through the entry when the recover bound after the peer's restart ran out",
	Allows:  func(o framework.Observation) bool { return o.Status == 404 }}

// stoppedFor is how long a gracefully stopped peer stays down under load.
const stoppedFor = 8 * time.Second

// Tests is the profile, as data.
var Tests = []framework.Test{
	{ID: "CHAOS-001", Profile: Profile, Since: "1.28", Features: needs,
		Description: "while the only server serving a GVR is crashed, requests for it through another server get 503 within the refused bound (nothing has to time out) and keep getting 503, never 404, for the whole hold (past the endpoint lease's expiry and every client timeout); no acknowledged write is lost, and they succeed again once it restarts",
		Deviation:   droppedOnSync, Makes: []framework.Write{load}, Run: crashed},
	{ID: "CHAOS-002", Profile: Profile, Since: "1.28", Features: needs,
		Description: "while the only server serving a GVR is frozen, requests for it through another server get 503 within the unavailable bound and keep getting 503, never 404, for the whole hold (past every timeout and refresh of the proxy); no acknowledged write is lost, and they succeed again once it thaws",
		Deviation:   droppedOnSync, Makes: []framework.Write{load}, Run: silent("freeze")},
	{ID: "CHAOS-003", Profile: Profile, Since: "1.28", Features: needs,
		Description: "when the only server serving a GVR stops gracefully, no acknowledged write is lost and requests succeed again once it restarts; the 404s after it left, and their window, are measured",
		Deviation:   missedAfterStop, Makes: []framework.Write{load}, Run: stopped},
	{ID: "CHAOS-004", Profile: Profile, Since: "1.28", Features: needsPeerPath,
		Description: "while the path from the other servers into the only server serving a GVR is a black hole (connections open, no data), requests for it get 503 within the unavailable bound and keep getting 503, never 404, for the whole hold; they succeed again once the path heals",
		Deviation:   droppedOnSync, Makes: []framework.Write{load}, Run: silent("blackhole")},
	{ID: "CHAOS-005", Profile: Profile, Since: "1.28", Features: needsPeerPath,
		Description: "while the path into the only server serving a GVR is half-open (requests arrive, answers never come back), requests for it get 503 within the unavailable bound and keep getting 503, never 404, for the whole hold; they succeed again once the path heals",
		Deviation:   droppedOnSync, Makes: []framework.Write{load}, Run: silent("half-open")},
	{ID: "CHAOS-006", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureOwnedCluster},
		Description: "while 8 slow-loris connections of each kind (headers, a create's body, a watch read, a byte a second) are held to the entry for 10 s, the load through it on connections of its own does not notice: every read 200 and write 201, none slower than 5 s, no write lost",
		Makes:       []framework.Write{load, slowCreates}, Run: slowClients},
	{ID: "CHAOS-007", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureRegistration},
		Description: "while the only server serving a GVR renews its registration as by a clock 2 h behind (each renew time past the lease's duration), requests for it through another server go unnoticed: every read 200 and write 201, none slower than 5 s, no write lost (a proxy judges its peers' leases by its own clock)",
		Makes:       []framework.Write{load, renewSkew}, Run: unnoticed("clock-behind-2h")},
	{ID: "CHAOS-008", Profile: Profile, Since: "1.28", Features: needs,
		Description: "while the only server serving a GVR presents an expired serving certificate (its peers made to handshake again), requests for it through another server get 503 within the unavailable bound, never 404 (a registered peer the proxy cannot trust is unavailable, not absent), and succeed again once its certificate is valid",
		Deviation:   droppedOnSync, Makes: []framework.Write{load}, Run: untrusted},
}

// unnoticedFor is how long a fault that clients must not notice is held: a proxy that
// misjudges it does so at its first look (a sync, a handshake), within seconds.
const unnoticedFor = 6 * time.Second

// unnoticed: the named fault must go unnoticed by the load, the verdict the chaos table
// gives such a fault (scenario.Violations, faults.Unnoticed): no failed answer, no stalled
// request, no lost write, no 404.
func unnoticed(name string) func(context.Context, *framework.Env) {
	return func(ctx context.Context, env *framework.Env) {
		o, f, _ := measure(ctx, env, soleRoute(env.Target), name, scenario.Options{For: unnoticedFor})
		Expect(scenario.Violations([]scenario.Outcome{o})).To(BeEmpty(), "%s must go unnoticed (answers by status: %v)", f.Description(), o.Statuses)
	}
}

// untrustedFor is how long an expired certificate is served past the first 503: a proxy
// that takes a peer it cannot verify for one that serves nothing answers 404 at the first
// request after the handshake fails.
const untrustedFor = 5 * time.Second

// untrusted: an expired serving certificate makes the peer unavailable to the proxies
// that must handshake with it again: 503 within bound, never 404, and recovery.
func untrusted(ctx context.Context, env *framework.Env) {
	bound := env.Timeouts.Unavailable
	o, f, entry := measure(ctx, env, soleRoute(env.Target), "expired-serving", scenario.Options{For: bound + untrustedFor, EndAfter503: untrustedFor})
	assertRecoveredUnlessDropped(ctx, env, o, f, entry)
	assertRegistered(env, o, f, entry, bound)
}

// crashed: the peer's connections are refused at once, so a 503 is due at once. The crash
// is held as long as a real outage lasts (env.Timeouts.Hold past the first 503: past the
// peer's endpoint lease TTL of 15 s, the peer discovery's resyncs and every client timeout),
// because a proxy that forgets a dead peer after some refresh of its own only shows it
// then: 404 for a resource a registered server serves.
func crashed(ctx context.Context, env *framework.Env) {
	held(ctx, env, "crash", env.Timeouts.Refused)
}

// silent: the peer stays registered and answers nothing. The fault is held env.Timeouts.Hold
// past the first 503 (or, without one, past the unavailable bound), so a proxy that forgets
// a silent peer after some refresh or timeout of its own is caught answering 404.
func silent(name string) func(context.Context, *framework.Env) {
	return func(ctx context.Context, env *framework.Env) { held(ctx, env, name, env.Timeouts.Unavailable) }
}

// held injects the named fault on the only server serving a GVR, holds it env.Timeouts.Hold
// past the first 503, and asserts on the whole window: the first 503 within bound, then 503
// and nothing else while the server stays registered (never 404), recovery once healed.
func held(ctx context.Context, env *framework.Env, name string, bound time.Duration) {
	o, f, entry := measure(ctx, env, soleRoute(env.Target), name, scenario.Options{For: bound + env.Timeouts.Hold, EndAfter503: env.Timeouts.Hold})
	env.Measure("faultHeldSeconds", o.FaultHeld)
	assertRecoveredUnlessDropped(ctx, env, o, f, entry)
	assertRegistered(env, o, f, entry, bound)
	// A 404 in the run is what the spurious-404 assertion (and, upstream, the known
	// deviation) covers; any other answer but 503 is a failure in itself.
	Expect(o.Not503AfterFirst-o.Spurious404).To(BeNumerically("<=", 0), "%s: after the first 503, %d answers were not 503 although the server stayed registered (answers by status: %v)",
		f.Description(), o.Not503AfterFirst, o.Statuses)
	env.Deviation(observed(entry, o, false), func() {
		Expect(o.Held503).To(BeNumerically(">=", env.Timeouts.Hold.Seconds()-5),
			"%s: 503 was held %.1fs without a break; the fault was held %v past the first 503 (answers by status: %v)", f.Description(), o.Held503, env.Timeouts.Hold, o.Statuses)
	})
}

// stopped: the peer leaves gracefully; 404 is then what upstream promises, so the 404s
// and their window are measured, not failed. Once it is back, requests must succeed.
func stopped(ctx context.Context, env *framework.Env) {
	o, f, entry := measure(ctx, env, soleRoute(env.Target), "stop", scenario.Options{For: stoppedFor})
	env.Deviation(framework.Observation{At: entry, Status: o.LastUnrecovered}, func() { assertRecovered(o, f) })
	if o.Unrecovered != "" && env.Target.RelearnPeers != nil {
		// Only the known deviation gets here: the servers are made to look at their peers
		// again, so the tests after this one start from a converged cluster.
		Expect(env.Target.RelearnPeers(ctx)).To(Succeed())
	}
}

// assertRecovered: once the fault is healed, requests through the entry succeed again.
func assertRecovered(o scenario.Outcome, f faults.Fault) {
	Expect(o.Unrecovered).To(BeEmpty(), "%s: %s (answers by status: %v)", f.Description(), o.Unrecovered, o.Statuses)
}

// assertRecoveredUnlessDropped: once the fault is healed, requests succeed again; unless
// the entry dropped the peer during the fault (droppedOnSync, seen as spurious 404s). Such a
// server looks at the peer again only at the next retry of its failed sync, or when some
// identity lease changes. The backoff doubles with every failure while the peer is down
// (from 5 ms, up to 20 retries), and once the peer's endpoint lease has expired ("missing
// port in address") each retry fails at once, so after a held fault the next one can be
// minutes away. Recovery then takes longer than the bound (seen on kind: 404 for more than
// 90 s after a thaw), which is the same deviation: it is reported as such, and the servers
// are made to look at their peers again so that the tests after this one start from a
// converged cluster.
func assertRecoveredUnlessDropped(ctx context.Context, env *framework.Env, o scenario.Outcome, f faults.Fault, entry *framework.Endpoint) {
	if o.Spurious404 == 0 {
		assertRecovered(o, f)
		return
	}
	env.Deviation(observed(entry, o, true), func() { assertRecovered(o, f) })
	if o.Unrecovered != "" && env.Target.RelearnPeers != nil {
		Expect(env.Target.RelearnPeers(ctx)).To(Succeed())
	}
}

// observed is what a fault's outcome shows of droppedOnSync, at the entry whose peer cache
// it is: the answers during the fault and, for the assertion on recovery, the last answer
// after healing (lastAfterHeal: 0 when it was no answer at all).
func observed(entry *framework.Endpoint, o scenario.Outcome, recovery bool) framework.Observation {
	other := 0
	for s, n := range o.AfterFirst503 {
		if s != 503 && s != 404 {
			other += n
		}
	}
	obs := framework.Observation{At: entry, Statuses: o.Statuses,
		Figures: map[string]float64{"spurious404": float64(o.Spurious404), "otherAfterFirst503": float64(other)}}
	if recovery {
		obs.Figures["lastAfterHeal"] = float64(o.LastUnrecovered)
	}
	return obs
}

// measure loads route through its entry (returned) while the named fault acts on the
// route's peer (for the faults on a server, the only server serving the GVR: soleRoute),
// records every figure, and fails on what any fault must not do: an error, a lost write.
func measure(ctx context.Context, env *framework.Env, route framework.Route, name string, opts scenario.Options) (scenario.Outcome, faults.Fault, *framework.Endpoint) {
	// A target whose nodes lack what the fault acts on, or whose peer traffic goes around
	// the peer path it acts on (upstream's does here), cannot be measured by it: that is a
	// skip with the reason, not a pass.
	f, skip, err := scenario.NewRunner(env.Target, route).Fault(ctx, name)
	Expect(err).NotTo(HaveOccurred())
	if skip != "" {
		ginkgo.Skip(skip)
	}
	if env.Target.Converge != nil {
		ginkgo.DeferCleanup(func(ctx context.Context) {
			Expect(env.Target.Converge(ctx)).To(Succeed(), "converging after %s", f.Description())
		})
	}
	opts.Interval, opts.Recover, opts.Seed = 200*time.Millisecond, env.Timeouts.Converge, ginkgo.GinkgoRandomSeed()
	o := scenario.Measure(ctx, env.Target.Kind, route, f, opts)
	ginkgo.AddReportEntry("fault", f.Description()+" during a load through "+route.Entry.Name+" for "+route.GVR.Key())
	Expect(o.Skipped).To(BeEmpty())
	env.Measure("timeTo503Seconds", o.TimeTo503)
	env.Measure("held503Seconds", o.Held503)
	env.Measure("timeToRecoverSeconds", o.TimeToRecover)
	env.Measure("spurious404", float64(o.Spurious404))
	env.Measure("left404", float64(o.Left404))
	env.Measure("window404Seconds", o.Window404)
	env.Measure("lostWrites", float64(o.LostWrites))
	Expect(o.Error).To(BeEmpty(), "%s: %s", f.Description(), o.Error)
	Expect(o.LostWrites).To(BeZero(), "%s: %d of %d acknowledged writes are missing afterwards", f.Description(), o.LostWrites, o.AckedWrites)
	return o, f, route.Entry
}

// assertRegistered: the peer is still registered during the fault, so 503 is the only
// honest answer: it must come within bound, and no request may be told 404.
//
// The 404s are judged first: a proxy that answers 404 for a registered peer often sends
// no 503 at all, and the failure must name the 404s, the more specific wrong, whichever
// came first in the run.
func assertRegistered(env *framework.Env, o scenario.Outcome, f faults.Fault, entry *framework.Endpoint, bound time.Duration) {
	env.Deviation(observed(entry, o, false), func() {
		Expect(o.Spurious404).To(BeZero(), "%s: %d requests got 404 although the only server serving the GVR is still registered (answers by status: %v)",
			f.Description(), o.Spurious404, o.Statuses)
	})
	Expect(firstUnavailable{Seconds: o.TimeTo503, Answers: fmt.Sprint(o.Statuses)}).To(Satisfy(func(u firstUnavailable) bool {
		return u.Seconds >= 0 && u.Seconds <= bound.Seconds()
	}), "%s: no 503 within %s (answers by status: %v)", f.Description(), bound, o.Statuses)
}

// firstUnavailable is what the 503 assertion observes: seconds to the first 503 (-1: none
// came) and the answers by status, printed in order ("map[0:1 200:3]"), so its failure
// says what came instead: no answer at all (0, requests held) is not some other status.
type firstUnavailable struct {
	Seconds float64
	Answers string
}

// soleRoute is a route into a creatable GVR exactly one server serves: a fault on that
// server leaves the GVR without one. With three servers or more a GVR the entry lacks may
// be served by two others, and upstream's proxy picks one of them at random for each
// request, so a fault on one of them would be met by a 200 from the other about every
// second request: no 503 is due there.
func soleRoute(t *framework.Target) framework.Route {
	routes := framework.SoleRoutes(t, "create", "list", "get")
	if len(routes) == 0 {
		framework.SkipMissing(framework.FeatureSkew, "no GVR skewcheck can create, list and get is served by exactly one endpoint, so no fault leaves it without a server: "+
			framework.NoRoutes(t, "create", "list", "get"))
	}
	return routes[0]
}
