package races

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
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

// Env is what every race needs: a route (Entry lacks the GVR, only Peer serves it), the
// target's convergence, and how long to watch.
type Env struct {
	Route    framework.Route
	Converge func(context.Context) error
	Interval time.Duration
	Observe  time.Duration // how long a steady state is watched
	// Hold is how long a stale lease is watched after the first 503: past every refresh
	// and timeout of the proxy, which must not forget the crashed peer. Default Observe.
	Hold  time.Duration
	Bound time.Duration // how long a recovery may take
}

func (env Env) path() string { return env.Route.GVR.Path() + "?limit=1" }

// Registering: the peer that alone serves the GVR starts while requests arrive. Until the
// entry has seen its identity lease and read its discovery the answer is 404 (readiness
// does not mean the peers know you), possibly 503 in between; then 200. 404s after the
// first 200 are counted as spurious.
func Registering(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "registering", Documented: "404 (or 503) until the entry knows the new peer, then 200 (later 404s counted)"}
	peer := env.Route.Peer
	if err := peer.Node.Stop(30 * time.Second); err != nil {
		o.Violations = append(o.Violations, "stopping the peer: "+err.Error())
		return o
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
	started := tl.Since()
	if err := peer.Node.Start(ctx); err != nil {
		o.Violations = append(o.Violations, "starting the peer: "+err.Error())
		return o
	}
	first := tl.waitFor(ctx, 200, started, env.Bound)
	if first < 0 {
		o.Violations = append(o.Violations, fmt.Sprintf("no 200 within %v of the peer starting", env.Bound))
	}
	o.Window = first - started
	time.Sleep(env.Observe)
	cancel()
	points := tl.Points()
	o.Seen = Summary(points)
	if first >= 0 {
		// Counted, not asserted: the entry rebuilds its peer cache whenever a lease
		// changes, which upstream does not keep free of 404s (see SameIdentity).
		o.Spurious404 = Counts(points, first, tl.Since())[404]
	}
	for _, s := range sortedStatuses(Counts(points, 0, tl.Since())) {
		if s != 200 && s != 404 && s != 503 {
			o.Violations = append(o.Violations, fmt.Sprintf("unexpected status %d", s))
		}
	}
	return o
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
// same identity lease: a short 503 window, then 200. Upstream sometimes answers a 404 or
// two just after the first 200 (seen on 1.35.4 -> 1.36.3): the restarted peer's lease gets
// a new holder, the entry rebuilds its peer cache and, until it has the peer's discovery
// again, does not know it serves the resource. Not reliably reproducible, so it is measured
// (Spurious404) and reported, not asserted. Before the first 200 the lease stands
// throughout: there 503 must be seen and 404 must not.
func SameIdentity(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "same-identity", Documented: "503 and never 404 until the restarted peer answers, then 200 (upstream: occasionally a spurious 404 just after, counted)"}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
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
	}
	if first >= 0 {
		// Until the peer answers again its lease stands, so 503 is the only honest
		// answer: a 404 before the first 200 is a violation, after it a measurement.
		before := Counts(points, mark, first)
		if before[503] == 0 {
			o.Violations = append(o.Violations, fmt.Sprintf("no 503 while the peer was down (before the first 200: %v)", before))
		}
		if before[404] > 0 {
			o.Violations = append(o.Violations, fmt.Sprintf("%d 404s before the restarted peer answered, while its lease stood", before[404]))
		}
		o.Spurious404 = Counts(points, first, tl.Since())[404]
	}
	return o
}

// LeaseDeleted: the peer's identity lease is deleted while requests arrive. The entry
// forgets the peer: 404 (the spurious window), until the peer re-creates its lease at its
// next renewal (every 10 s), then 200.
func LeaseDeleted(ctx context.Context, env Env) Outcome {
	o := Outcome{Race: "lease-deleted", Documented: "404 until the peer re-creates its lease (renewed every 10 s), then 200 within 20 s of the deletion"}
	cs, err := kubernetes.NewForConfig(env.Route.Entry.Admin)
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	lease, err := identityLease(ctx, cs, env.Route.Peer)
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tl := poll(pctx, env.Route.Entry, env.path(), env.Interval)
	tl.waitFor(ctx, 200, 0, env.Bound)
	deleted := tl.Since()
	if err := cs.CoordinationV1().Leases("kube-system").Delete(ctx, lease, metav1.DeleteOptions{}); err != nil {
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
		o.Violations = append(o.Violations, fmt.Sprintf("no 200 within %v of deleting the lease", env.Bound))
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

// DeadAddress: an identity lease names an address where nothing listens. A server that
// serves nothing anyone can read must not disturb routing: the real peer keeps answering.
func DeadAddress(ctx context.Context, env Env, deadAddress string) Outcome {
	o := Outcome{Race: "dead-address", Documented: "a lease pointing at nothing changes nothing: 200 throughout"}
	cs, err := kubernetes.NewForConfig(env.Route.Entry.Admin)
	if err != nil {
		o.Violations = append(o.Violations, err.Error())
		return o
	}
	name, holder, secs := "apiserver-skewcheckdeadaddress", "apiserver-skewcheckdeadaddress_0", int32(3600)
	now := metav1.NewMicroTime(time.Now())
	_, err = cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "skewcheck-dead"},
			Annotations: map[string]string{"kubernetes.io/peer-advertise-address": deadAddress}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &now, AcquireTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		o.Violations = append(o.Violations, "creating the lease: "+err.Error())
		return o
	}
	defer cs.CoordinationV1().Leases("kube-system").Delete(context.Background(), name, metav1.DeleteOptions{})
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

// identityLease finds the identity lease of the server behind e by the address it
// advertises to peers (its own, or the peer path in front of it when the cluster has one),
// or by its hostname when the target knows it.
func identityLease(ctx context.Context, cs kubernetes.Interface, e *framework.Endpoint) (string, error) {
	u, err := url.Parse(e.URL)
	if err != nil {
		return "", err
	}
	addrs := []string{u.Host}
	if p := faults.PeerPathOf(e); p != nil {
		addrs = append(addrs, p.Address)
	}
	leases, err := cs.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: "apiserver.kubernetes.io/identity=kube-apiserver"})
	if err != nil {
		return "", err
	}
	for _, l := range leases.Items {
		if slices.Contains(addrs, l.Annotations["kubernetes.io/peer-advertise-address"]) ||
			e.Hostname != "" && l.Labels["kubernetes.io/hostname"] == e.Hostname {
			return l.Name, nil
		}
	}
	if e.Hostname != "" {
		return "", fmt.Errorf("no identity lease advertises %s or names host %s", strings.Join(addrs, " or "), e.Hostname)
	}
	return "", fmt.Errorf("no identity lease advertises %s", strings.Join(addrs, " or "))
}

// restore starts the peer again if a race left it down, and waits for convergence.
func restore(ctx context.Context, env Env) {
	env.Route.Peer.Node.Start(ctx)
	if env.Converge != nil {
		env.Converge(ctx)
	}
}
