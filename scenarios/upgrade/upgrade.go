// Package upgrade is the rolling-upgrade scenario of the nightly skew jobs: every server
// starts at the first version of a path; a seeded load reads, writes and watches through
// every server, over core resources and whatever some servers serve and others do not; for
// each next version of the path (a hop: an upgrade, or a downgrade, the rollback of one),
// servers are restarted one at a time (graceful stop, start at that version). It asserts
// what the mixed version proxy promises, counts every class of request in every step and
// mixed window, and draws a timeline.
package upgrade

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Options of one rolling upgrade.
type Options struct {
	// Path is the versions the cluster goes through (ParsePath, RoundTrip): every server
	// starts at Path[0], and each next version is a hop, a rolling restart of every server
	// to it. Empty: From then To, one hop.
	Path     []string
	From, To string
	Servers  int
	Seed     int64
	// Interval paces each server's load; Settle is load before the first step, between
	// steps and after the last, so that much traffic falls outside every window; Window is
	// the declared convergence window after a step (which already waited for convergence),
	// in which the failed answers an upgrade gives (allowances) are counted, not violations.
	Interval, Settle, Window time.Duration
	Progress                 io.Writer
	// Provider makes the cluster (clusters.New; a registered provider's name, required), from Cluster
	// (Name, Binaries, Port...; Servers is set from From). Run deletes it at the end.
	Provider string
	Cluster  clusters.Spec
	// Fault, when set, goes wrong during every step: the named process fault (crash, stop,
	// freeze) hits the next server, not the one being upgraded, as the step starts, and
	// heals after FaultFor. Its span counts as a window, like a step's.
	Fault    string
	FaultFor time.Duration
	// Namespace is where the load writes and watches its configmaps (default: default).
	Namespace string
	// Owners carries owners of the resources only some servers serve, and ConfigMaps they
	// own, through the upgrade (made at the start and after each step, for each resource
	// skewed then that has none yet), for a real kube-controller-manager's garbage
	// collector, and checks at the end that every dependent whose owner stands is still
	// there (Result.Owners). A kube-controller-manager must lead: Run asks the cluster for
	// one (Cluster.ControllerManager, behind the load balancer when unset) and RunOn refuses
	// a cluster without one.
	Owners bool
}

// FaultSpan is one fault injected during the upgrade, in seconds since the start.
type FaultSpan struct {
	Server      string  `json:"server"`
	Fault       string  `json:"fault"`
	Description string  `json:"description"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"` // healed
}

// Step is one server's restart at another version, in seconds since the start.
type Step struct {
	Hop    int     `json:"hop"` // 1-based
	Server string  `json:"server"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Start  float64 `json:"start"`
	Up     float64 `json:"up"`  // the restarted server answers, at To
	End    float64 `json:"end"` // converged again
	// Unconverged, of a watched step: why it ended with the servers not reaching what the
	// others serve (the bound passed, or the next server left first). Its window then runs
	// the declared window after its server came back, not after End: time for a proxy to
	// learn its peers, as a converged step gets, and no more, so the 404s an inert proxy
	// answers after it are counted outside every window.
	Unconverged string `json:"unconverged,omitempty"`
	// Unfinished, of a watched step: the watch ended before the server came back (Up 0)
	// or converged; End is the watch's end.
	Unfinished bool `json:"unfinished,omitempty"`
	// Confirmed says what shows the server's process changed: skewcheck restarted it, its
	// version changed, its identity lease has a new holder or its process start time
	// moved. A watched step left unconfirmed is a readiness gap (Gap), not a step.
	Confirmed string `json:"confirmed,omitempty"`
}

// Hop is one rolling restart of every server from one version of the path to the next.
// Start and End bound its mixed window: from its first step's start to its last step's
// end, while the servers run different versions.
type Hop struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Direction string  `json:"direction"` // upgrade or downgrade
	Start     float64 `json:"start"`
	End       float64 `json:"end"`
	// Gone and Added are the listable GVRs no server serves any more after the hop, and
	// those only the hop's version serves: the APIs a downgrade takes away (reads of them
	// answer 404 from then on, whatever is stored) and an upgrade brings.
	Gone       []string `json:"gone,omitempty"`
	Added      []string `json:"added,omitempty"`
	Violations []string `json:"violations,omitempty"`
}

// Event is one answer the load got.
type Event struct {
	T      float64 `json:"t"`
	Server string  `json:"server"`
	Kind   string  `json:"kind"` // read, write, watch-end, watch-relist, watch-resume
	GVR    string  `json:"gvr,omitempty"`
	Status int     `json:"status"`         // of a watch-end: the watch request's own status
	Name   string  `json:"name,omitempty"` // of an acknowledged write: the object written
	Lost   bool    `json:"lost,omitempty"` // the acknowledged write is gone at the end
	// Sent is when the request went out (T is when its answer came): a request that
	// overlaps a window was subject to it, even if its answer came after.
	Sent float64 `json:"sent,omitempty"`
	// Error is what the client saw when no whole answer came (Status 0), or what ended a
	// watch's stream.
	Error string `json:"error,omitempty"`
	// Early, of a watch-end: its stream ended (an error, or the server closing it) before
	// the watch's own timeout, which ends every stream routinely.
	Early bool `json:"early,omitempty"`
}

// Counts are the figures compared night to night.
type Counts struct {
	Reads, Writes, AckedWrites, LostWrites int
	// NotFound and Unavailable count 404s and 503s for resources a live server serves,
	// outside every step's window (violations) and inside (expected, reported).
	NotFoundOutside, NotFoundInside       int
	UnavailableOutside, UnavailableInside int
	WatchResumes                          int
	WatchesNotResumed                     []string
	// Dependents are those of the owners carried through (Options.Owners); DependentsLost
	// those gone at the end while their owner stood (each a violation).
	Dependents, DependentsLost int
	// FailedOutside and FailedInside count every answer that was not the load's success (a
	// read not 200, a write not 201, no answer, a watch cut short), 404s and 503s included, outside every window (each a violation) and
	// inside one; Disallowed are those inside that no upgrade gives there (each a
	// violation too). Result.Failures has them by kind, server and GVR.
	FailedOutside, FailedInside, Disallowed int
}

// Result is the whole run.
type Result struct {
	From, To string // the path's ends
	Path     []string
	Servers  int
	Seed     int64
	// Started is when the load began: steps, hops and events count seconds from it, so two
	// runs watching one cluster (an upgrade and an observer) line up on it.
	Started time.Time `json:"started"`
	// Initial is each server's version when the load began (a cluster caught mid-upgrade
	// starts with several).
	Initial  map[string]string `json:"initial,omitempty"`
	Window   float64           `json:"windowSeconds"`
	Duration float64           `json:"durationSeconds"`
	Hops     []Hop
	Steps    []Step
	Faults   []FaultSpan `json:",omitempty"`
	Counts   Counts
	// Periods count every class of request in every step, every hop's mixed window and
	// outside them all.
	Periods []Period
	// ServedBy lists, for every GVR that some version the run saw does not serve, the
	// versions that serve it: what tells a skewed read, and a rerouted one, apart.
	ServedBy map[string][]string `json:"servedBy,omitempty"`
	// Kept are objects written along the way and read back after every later hop.
	Kept []Kept `json:"kept,omitempty"`
	// Owners are the owners and dependents carried through for the garbage collector
	// (Options.Owners), and what the end found of them; nil when none were asked for.
	Owners *Owners `json:"owners,omitempty"`
	// Failures are the answers that were not the load's success, by kind, request, server,
	// GVR and window, each with whether an upgrade may give it there.
	Failures []Failure `json:"failures,omitempty"`
	// Gaps, of a watched upgrade, are the times a server stopped being ready without its
	// process changing: no step, no window, never a hop.
	Gaps       []Gap `json:"readinessGaps,omitempty"`
	Violations []string
	// Unobserved, of a watched upgrade (Observe), says what the watch could not see
	// through: no step at all, a server that never came back, a version never reached.
	// What was seen is still judged.
	Unobserved string `json:",omitempty"`
	Events     []Event
}

// Passed is true when no assertion was violated.
func (r *Result) Passed() bool { return len(r.Violations) == 0 }

// Run makes the cluster, runs the load and every hop's steps (RunOn), and deletes the cluster.
func Run(ctx context.Context, o Options) (*Result, error) {
	o, err := o.withPath()
	if err != nil {
		return nil, err
	}
	if o.Owners && o.Cluster.ControllerManager == nil {
		// Behind the balancer, as many clusters connect it: its discovery and its reads of an
		// owner may reach different servers, which is where a server that does not proxy
		// costs dependents (docs/controllers.md). Connected to the one server lacking a
		// resource, its discovery lacks it too, and it deletes nothing either way.
		o.Cluster.ControllerManager = &clusters.ControllerManagerSpec{Connect: clusters.ConnectLoadBalancer}
	}
	c, err := makeCluster(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Delete()
	return RunOn(ctx, c, o)
}

// withPath is o with Path filled from From and To, and its fault checked.
func (o Options) withPath() (Options, error) {
	if len(o.Path) == 0 {
		o.Path = []string{o.From, o.To}
	}
	if len(o.Path) < 2 {
		return o, fmt.Errorf("path %v: a rolling upgrade needs a version to start at and one to go to", o.Path)
	}
	o.From = o.Path[0]
	if o.Fault != "" {
		if err := faults.Check(o.Fault); err != nil {
			return o, err
		}
		if !faults.IsProcess(o.Fault) {
			return o, fmt.Errorf("fault %s: during an upgrade only process faults (crash, stop, freeze) apply; upstream's peer traffic does not take a peer path skewcheck can fault", o.Fault)
		}
		if o.FaultFor <= 0 {
			o.FaultFor = 5 * time.Second
		}
	}
	return o, nil
}

// RunOn runs the load and every hop's steps on c, a cluster whose apiservers run at the
// path's first version, and checks; c stays. Path[0] is whatever version the members run.
func RunOn(ctx context.Context, c clusters.Cluster, o Options) (*Result, error) {
	o, err := o.withPath()
	if err != nil {
		return nil, err
	}
	target, err := c.Target(ctx)
	if err != nil {
		return nil, err
	}
	up, ok := c.(clusters.Upgradable)
	if !ok {
		return nil, fmt.Errorf("the provider's clusters cannot have their apiservers restarted at another version (clusters.Upgradable): a rolling upgrade needs a cluster skewcheck makes")
	}
	members := up.Members()
	from := oldest(target) // a cluster caught mid-upgrade starts from its oldest server
	r := &Result{From: from, Path: []string{from}, Servers: len(members), Seed: o.Seed, Window: o.Window.Seconds(), Started: time.Now()}
	r.Initial = initial(target)
	l := newLoad(target, o, r.Started)
	l.track(ctx)
	progress := func(format string, a ...any) { fmt.Fprintf(o.Progress, format, a...) }
	keep(ctx, r, target.Endpoints[0], 0, progress)
	var own *carrier
	if o.Owners {
		if own, err = carry(ctx, target, o.Namespace, false, l.since(), progress); err != nil {
			return nil, err
		}
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	l.start(loadCtx, &wg)
	halt := func() { stopLoad(); wg.Wait() }
	sleep(ctx, o.Settle)
	for h, to := range o.Path[1:] {
		hop := Hop{From: r.Path[len(r.Path)-1], To: to}
		before := listable(target)
		for i, s := range members {
			if s.Version() == to {
				// Already there: a cluster caught mid-upgrade rolls on from where it is.
				fmt.Fprintf(o.Progress, "hop %d/%d: %s already runs %s\n", h+1, len(o.Path)-1, s.Name(), to)
				continue
			}
			if p, ok := s.(clusters.Preparer); ok {
				if err := p.Prepare(ctx, to); err != nil {
					halt()
					return nil, fmt.Errorf("hop %d, preparing %s for %s: %w", h+1, s.Name(), to, err)
				}
			}
			// Numbered among the hops that happened: one whose every member was there is none.
			step := Step{Hop: len(r.Hops) + 1, Server: s.Name(), From: s.Version(), To: to, Start: l.since()}
			var faulted <-chan FaultSpan
			if o.Fault != "" {
				victim := members[(i+1)%len(members)]
				if faulted, err = faultDuring(ctx, target, victim.Name(), o, l); err != nil {
					halt()
					return nil, err
				}
			}
			fmt.Fprintf(o.Progress, "hop %d/%d: restarting %s: %s -> %s\n", h+1, len(o.Path)-1, s.Name(), s.Version(), to)
			if err := s.Restart(ctx, to); err != nil {
				if faulted != nil {
					<-faulted // healed before the cluster goes
				}
				halt()
				return nil, fmt.Errorf("hop %d, restarting %s at %s: %w", h+1, s.Name(), to, err)
			}
			step.Up, step.To = l.since(), s.Version()
			// Restart stopped the process and started another: that is the evidence.
			step.Confirmed = "skewcheck restarted it at " + step.To
			if faulted != nil {
				r.Faults = append(r.Faults, <-faulted)
			}
			if err := c.WaitConverged(ctx); err != nil {
				halt()
				return nil, fmt.Errorf("hop %d, after restarting %s at %s: %w", h+1, s.Name(), to, err)
			}
			step.End = l.since()
			r.Steps = append(r.Steps, step)
			if hop.Start == 0 {
				hop.Start = step.Start
			}
			hop.End, hop.To = step.End, step.To
			if err := target.Refresh(ctx); err == nil {
				l.track(ctx)
				keep(ctx, r, target.Endpoint(s.Name()), len(r.Hops)+1, progress)
				own.add(ctx, target, l.since())
			}
			fmt.Fprintf(o.Progress, "hop %d/%d: step %d/%d done in %.1fs\n", h+1, len(o.Path)-1, i+1, len(members), step.End-step.Start)
			sleep(ctx, o.Settle)
		}
		if hop.Start == 0 {
			continue // every member already ran the hop's version: nothing happened
		}
		hop.Direction = Direction(hop.From, hop.To)
		after := listable(target)
		hop.Gone, hop.Added = keys(after.Missing(before)), keys(before.Missing(after))
		r.Hops = append(r.Hops, hop)
		r.Path = append(r.Path, hop.To)
		readKept(ctx, r, target, len(r.Hops))
	}
	r.To = r.Path[len(r.Path)-1]
	halt()
	r.Duration = l.since()
	r.Owners = own.end(ctx, target)
	l.check(ctx, r)
	return r, nil
}

// initial is each endpoint's version now.
func initial(t *framework.Target) map[string]string {
	out := map[string]string{}
	for _, e := range t.Endpoints {
		out[e.Name] = e.Version
	}
	return out
}

// listable is every listable GVR some endpoint serves, by the endpoints' last discovery.
func listable(t *framework.Target) discovery.Set {
	out := discovery.Set{}
	for _, e := range t.Endpoints {
		for k, g := range e.Served {
			if g.Can("list") {
				out[k] = g
			}
		}
	}
	return out
}

func keys(s discovery.Set) []string {
	var out []string
	for _, g := range s.Sorted() {
		out = append(out, g.Key())
	}
	return out
}

// faultDuring injects o.Fault into the named server now and heals it after o.FaultFor, in
// the background; the span arrives on the channel once healed.
func faultDuring(ctx context.Context, target *framework.Target, server string, o Options, l *load) (<-chan FaultSpan, error) {
	f, err := faults.ByName(o.Fault, faults.NewSubject(target.Endpoints, target.Endpoint(server), nil))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Progress, "fault during the step: %s\n", f.Description())
	span := FaultSpan{Server: server, Fault: f.Name(), Description: f.Description(), Start: l.since()}
	heal, err := faults.Inject(ctx, f)
	if err != nil {
		return nil, err
	}
	done := make(chan FaultSpan, 1)
	go func() {
		sleep(ctx, o.FaultFor)
		if err := heal(context.Background()); err != nil {
			fmt.Fprintf(o.Progress, "warning: %v\n", err)
		}
		span.End = l.since()
		done <- span
	}()
	return done, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// violate records a violation, also under the hop it happened in.
func (r *Result) violate(t float64, v string) {
	r.Violations = append(r.Violations, v)
	if h := r.hopAt(t); h >= 0 {
		r.Hops[h].Violations = append(r.Hops[h].Violations, v)
	}
}

// hopAt is the index of the hop under way or last done at t (the first hop for the
// settling before it), -1 without hops.
func (r *Result) hopAt(t float64) int {
	h := -1
	for i, hop := range r.Hops {
		if i == 0 || t >= hop.Start {
			h = i
		}
	}
	return h
}
