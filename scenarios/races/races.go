package races

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// Outcome is one race: what upstream documents, what was seen, and the window measured.
type Outcome struct {
	Race       string  `json:"race"`
	Documented string  `json:"documented"`
	Seen       string  `json:"seen"` // runs of statuses, e.g. "200x19 404x53 200x185"
	Window     float64 `json:"windowSeconds"`
	// Spurious404 counts 404s while a server that serves the resource was registered: a
	// figure to watch, reported where upstream does not reliably avoid them.
	Spurious404 int `json:"spurious404"`
	// Held503 is the longest run of 503s, in seconds, with nothing else in between.
	Held503    float64  `json:"held503Seconds"`
	Violations []string `json:"violations,omitempty"`
}

// Passed is true when what was seen is what is documented.
func (o Outcome) Passed() bool { return len(o.Violations) == 0 }

// Env is what every race needs: a route (Entry lacks the GVR, only Peer serves it: with
// three servers or more a GVR two servers serve gets 200 from one while the race acts on
// the other; DeadAddress, which acts on no server, takes any route), the target's
// convergence, and how long to watch.
type Env struct {
	Route    framework.Route
	Converge func(context.Context) error
	Interval time.Duration
	Observe  time.Duration // how long a steady state is watched
	// Hold is how long a stale lease is watched after the first 503: past every refresh
	// and timeout of the proxy, which must not forget the crashed peer. Default Observe.
	Hold  time.Duration
	Bound time.Duration // how long a recovery may take
	// Registrar is how the target's proxies register their servers (Target.Registrar);
	// nil: kube-apiserver identity leases, read and written through the entry.
	Registrar framework.Registrar
	// DeadAddress is where the dead-address race's registration points (nothing may
	// listen there); "": DefaultDeadAddress.
	DeadAddress string
}

// DefaultDeadAddress is the last address block local clusters would use, where nothing
// listens.
const DefaultDeadAddress = "127.77.250.250:6443"

func (env Env) path() string { return env.Route.GVR.Path() + "?limit=1" }

// registrar is env.Registrar, or upstream's identity leases through the entry.
func (env Env) registrar() (framework.Registrar, error) {
	if env.Registrar != nil {
		return env.Registrar, nil
	}
	return identityLeasesVia(env.Route.Entry)
}

// Registering: the peer that alone serves the GVR starts while requests arrive. Its window
// is asserted in three parts, by what the identity leases say. While the peer has no
// identity lease (from 1.35 a graceful stop deletes it), nothing is registered to serve the
// GVR: the answer is 404, and a 503 would tell clients to retry for something that does not
// exist. From its lease until the entry has read its discovery (readiness does not mean the
// peers know you: upstream's endpoint lease comes only after /readyz), 404 or 503. Then 200
// within the bound, and nothing but 200 while the peer is watched serving: a 404 then is
// the spurious one the proxy exists to prevent (no lease changes after the peer's own
// creation, so upstream rebuilds no cache that could drop it), a 503 an outage.
func Registering(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "registering", Documented: "404 while the peer has no identity lease; 404 or 503 until the entry knows it; then 200 within the bound, and only 200 after"}
	peer := env.Route.Peer
	reg, err := env.registrar()
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	if err := peer.Node.Stop(30 * time.Second); err != nil {
		o.Violations = append(o.Violations, "stopping the peer: "+err.Error())
		return o
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
	absence := watchAbsence(pctx, reg, peer, tl, env.Interval)
	started := tl.Since()
	if err := peer.Node.Start(ctx); err != nil {
		o.Violations = append(o.Violations, "starting the peer: "+err.Error())
		return o
	}
	first := tl.waitFor(ctx, 200, started, env.Bound)
	o.Window = first - started
	time.Sleep(env.Observe)
	cancel()
	points := tl.Points()
	o.Seen = Summary(points)
	if first < 0 {
		o.Violations = append(o.Violations, noRecovery("the peer starting", env.Bound, points))
	}
	v, spurious := judgeRegistering(points, absence.AbsentUntil(), first)
	o.Violations, o.Spurious404 = append(o.Violations, v...), spurious
	return o
}

// judgeRegistering sets a registration's answers against its documented window: 404 up to
// absent (the last time the peer was seen without an identity lease; -1: never), 200, 404
// or 503 until first (the first 200; -1: none came), 200 alone from then on. It returns the
// violations, and the 404s after the first 200.
func judgeRegistering(points []Point, absent, first float64) (violations []string, spurious404 int) {
	end := math.Inf(1)
	if absent >= 0 {
		if c := Counts(points, 0, absent); c[404] != sum(c) {
			violations = append(violations, fmt.Sprintf("answers other than 404 while the peer had no identity lease (until %.2fs): %v", absent, c))
		}
	}
	for _, s := range sortedStatuses(Counts(points, 0, end)) {
		if s != 200 && s != 404 && s != 503 {
			violations = append(violations, fmt.Sprintf("unexpected status %d", s))
		}
	}
	if first >= 0 {
		after := Counts(points, first, end)
		spurious404 = after[404]
		if after[200] != sum(after) {
			violations = append(violations, fmt.Sprintf("answers other than 200 after the first 200 (at %.2fs), while the peer was registered and serving: %v", first, after))
		}
	}
	return violations, spurious404
}

// noRecovery is the violation of a race whose path never answered 200 again within bound
// of what: it names the last answer, what clients were still told then (404: the peer not
// taken back; 503: not reachable; 0: no answer), as the chaos scenarios' Unrecovered does.
func noRecovery(what string, bound time.Duration, points []Point) string {
	last := 0
	if len(points) > 0 {
		last = points[len(points)-1].Status
	}
	return fmt.Sprintf("no 200 within %v of %s (the last answer: %d)", bound, what, last)
}

func sum(c map[int]int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// StaleLease: the peer crashed; its identity lease stays (1.28-1.34 never delete it, and a
// crash deletes nothing), so the entry keeps choosing it and answers 503, never 404, for as
// long as the lease lives (up to an hour upstream). Watched for env.Hold after the first
// 503, so a proxy that drops the peer on some refresh of its own is caught.
func StaleLease(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "stale-lease", Documented: "503 for as long as the crashed peer's lease lives, never 404"}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
	killed := tl.Since()
	if err := env.Route.Peer.Node.Kill(); err != nil {
		o.Violations = append(o.Violations, "killing the peer: "+err.Error())
		return o
	}
	first := tl.waitFor(ctx, 503, killed, env.Bound)
	o.Window = first - killed
	hold := env.Hold
	if hold == 0 {
		hold = env.Observe
	}
	time.Sleep(hold)
	cancel()
	points := tl.Points()
	o.Seen = Summary(points)
	o.Held503 = LongestRun(points, 503)
	if first < 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("no 503 within %v of the crash", env.Bound))
	} else if c := Counts(points, first, tl.Since()); c[404] > 0 || c[200] > 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("after the first 503: %d 404s and %d 200s while the peer was down", c[404], c[200]))
	}
	restore(ctx, env)
	return o
}

// SameIdentity: the peer crashes and comes straight back with the same hostname, so the
// same identity lease: a 503 window, then 200. While the crashed peer's lease stands, 503 is
// the only honest answer: there 503 must be seen and 404 must not. From 1.35 a server
// deletes the lease of its hostname when it starts (k8s.io/component-helpers
// apimachinery/lease, "Deleting old lease on startup") and then creates its own: the
// entry, which rebuilds its peer cache on both, does not know the peer until it has the new
// lease and the peer's discovery, and answers 404 meanwhile. That is upstream's design,
// and its length depends on how soon the restarted peer answers: the 404s from then on are
// measured (Spurious404), not asserted. Seen on kind (1.35.4 -> 1.36.3): 404 for 2.3 s
// before the first 200; on local clusters the first 200 usually comes before the
// deletion, and a 404 or two after it.
func SameIdentity(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "same-identity", Documented: "503 and never 404 while the crashed peer's lease stands, then 200 (from 1.35 the restarted peer deletes its old lease on startup: 404s from then on counted)"}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reg, lease, tl, err := pollPeerLease(pctx, env)
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	lw, err := watchLease(pctx, reg, lease, tl, env.Interval)
	if err != nil {
		o.Violations = append(o.Violations, "reading the peer's identity lease: "+err.Error())
		return o
	}
	mark := tl.Since()
	if err := env.Route.Peer.Node.Kill(); err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	// The peer is down once Kill returns. Through a container runtime a kill takes a round
	// trip, in which the peer may still answer 200; such an answer, or one sent before the
	// kill and landing after it, is not the restarted peer's: only requests sent from now
	// on can give that.
	down := tl.Since()
	if err := env.Route.Peer.Node.Start(ctx); err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	first := tl.waitForSent(ctx, 200, down, env.Bound)
	o.Window = first - mark
	time.Sleep(env.Observe)
	cancel()
	points := tl.Points()
	o.Seen = Summary(points)
	if first < 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("no 200 within %v of the restart", env.Bound))
		return o
	}
	if before := Counts(points, mark, first); before[503] == 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("no 503 while the peer was down (before the first 200: %v)", before))
	}
	// A 404 that came before a read found the old lease still there was told while the
	// peer was registered; one after it may follow the restarted peer's deletion.
	stood := lw.Stood()
	registered := Counts(points, mark, stood)[404]
	if registered > 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("%d 404s while the crashed peer's lease stood (it was last read %.2fs into the race)", registered, stood))
	}
	o.Spurious404 = Counts(points, mark, tl.Since())[404] - registered
	return o
}

// pollPeerLease begins a race on the peer's registration: it finds the target's registrar
// and the name of the peer's registration (its identity lease, upstream), then polls the
// entry until ctx ends.
func pollPeerLease(ctx context.Context, env Env) (framework.Registrar, string, *Timeline, error) {
	reg, err := env.registrar()
	if err != nil {
		return nil, "", nil, err
	}
	r, err := reg.Find(ctx, env.Route.Peer)
	if err != nil {
		return nil, "", nil, err
	}
	return reg, r.Name, poll(ctx, env.Route.Entry, env.path(), env.Interval), nil
}

// LeaseDeleted: the peer's identity lease is deleted while requests arrive. The entry
// forgets the peer: 404 (the spurious window), until the peer re-creates its lease at its
// next renewal (every 10 s), then 200.
func LeaseDeleted(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "lease-deleted", Documented: "404 until the peer re-creates its lease (renewed every 10 s), then 200 within 20 s of the deletion"}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	reg, lease, tl, err := pollPeerLease(pctx, env)
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	tl.waitFor(ctx, 200, 0, env.Bound)
	deleted := tl.Since()
	if err := reg.Expire(ctx, lease); err != nil {
		o.Violations = append(o.Violations, "deleting the lease: "+err.Error())
		return o
	}
	first404 := tl.waitFor(ctx, 404, deleted, 15*time.Second)
	back := tl.waitFor(ctx, 200, max(first404, deleted), env.Bound)
	cancel()
	o.Seen = Summary(tl.Points())
	o.Spurious404 = Counts(tl.Points(), deleted, tl.Since())[404]
	switch {
	case back < 0:
		o.Violations = append(o.Violations, noRecovery("deleting the lease", env.Bound, tl.Points()))
	case back-deleted > leaseRecreated.Seconds():
		o.Violations = append(o.Violations, fmt.Sprintf("200 again only %.1fs after the lease was deleted; the peer re-creates it within %v", back-deleted, leaseRecreated))
	}
	if first404 >= 0 && back >= 0 {
		o.Window = back - first404
	}
	for _, s := range sortedStatuses(Counts(tl.Points(), deleted, tl.Since())) {
		if s != 200 && s != 404 && s != 503 {
			o.Violations = append(o.Violations, fmt.Sprintf("unexpected status %d", s))
		}
	}
	return o
}

// leaseRecreated bounds how soon requests succeed again after a peer's identity lease is
// deleted: the peer renews every 10 s (re-creating it), and the entry's informer and peer
// discovery then need a moment; measured 7 to 9 s on 1.35.4 -> 1.36.3.
const leaseRecreated = 20 * time.Second

// DeadAddress: a registration names an address where nothing listens. A server that
// serves nothing anyone can read must not disturb routing: the real peer keeps answering.
// Upstream's forged identity lease has no address at all (identityLeases.Forge says why):
// there the race is a registration the entry cannot reach, not a dead address.
func DeadAddress(ctx context.Context, env Env) Outcome {
	deadAddress := cmp.Or(env.DeadAddress, DefaultDeadAddress)
	o := Outcome{Race: "dead-address", Documented: "a lease pointing at nothing changes nothing: 200 throughout"}
	reg, err := env.registrar()
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	created := time.Now()
	forged, err := reg.Forge(ctx, deadAddress)
	if err != nil {
		o.Violations = append(o.Violations, "creating the lease: "+err.Error())
		return o
	}
	defer removeFailingLease(ctx, reg, forged.Name, created)
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
	time.Sleep(env.Observe)
	cancel()
	points := tl.Points()
	o.Seen = Summary(points)
	if c := Counts(points, 0, tl.Since()); c[200] != len(points) {
		o.Violations = append(o.Violations, fmt.Sprintf("answers other than 200: %v", c))
	}
	return o
}

// removeFailingLease deletes a registration that names no server, and waits until the
// entry is done retrying it. 1.35 and later cannot sync their peer cache while such an
// identity lease stands (it has no peer endpoint: "missing port in address"); each failed
// sync is retried with a per-lease exponential backoff (5 ms doubling: k8s.io/apiserver
// peerproxy handleSyncPeerDiscoveryCacheErr), and a retry already scheduled still runs
// after the lease is gone. Every sync rebuilds the cache from scratch and leaves out a peer
// that does not answer just then, so that retry, run during the next race, dropped a
// crashed peer whose lease stood (kind, RACE-002 after RACE-005: 404 from 0.5 s after the
// crash, the retry 2.5 s after this deletion). Each backoff is about the sum of those
// before it, so the last retry comes at most about as long after the deletion as the lease
// existed (a second more for the syncs themselves, on a busy machine). Other registrars
// get the same wait: it costs a few seconds and keeps the races independent.
func removeFailingLease(ctx context.Context, reg framework.Registrar, name string, created time.Time) {
	reg.Expire(context.Background(), name)
	select {
	case <-ctx.Done():
	case <-time.After(time.Since(created) + time.Second):
	}
}

// restore starts the peer again if a race left it down, and waits for convergence.
func restore(ctx context.Context, env Env) {
	env.Route.Peer.Node.Start(ctx)
	if env.Converge != nil {
		env.Converge(ctx)
	}
}
