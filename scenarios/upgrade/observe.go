package upgrade

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// ObserveOptions of watching a rolling upgrade someone else drives (kubeadm, a managed
// service, a distribution's operator): the cluster is only read and loaded, never
// restarted.
type ObserveOptions struct {
	// For bounds the watch; Until, when set, ends it sooner: once every apiserver answers
	// that version, no step is under way, and Settle has passed since the last one.
	For   time.Duration
	Until string
	Seed  int64
	// Interval, Settle and Window are the upgrade's (Options): the load's pace, the load
	// before the end, and the declared window after each step.
	Interval, Settle, Window time.Duration
	// Poll is how often each apiserver is asked /readyz and /version (default 250ms).
	Poll time.Duration
	// Converge bounds the wait, after a server is back, for every server to reach what the
	// others serve (default 1 minute); past it the step ends with a violation.
	Converge time.Duration
	// Namespace is where the load writes (the run's own on a cluster skewcheck does not own).
	Namespace string
	// Owners is Options.Owners, in Namespace only (namespaced owners: nothing of the
	// cluster's is touched): the cluster's own kube-controller-manager must lead.
	Owners   bool
	Progress io.Writer
}

// Observe runs the rolling upgrade's load through every apiserver of c and infers the
// steps from what it sees: a server leaves after its last good answer, when it stops
// answering /readyz (or, on a cluster that lists its servers, clusters.Listing, when its
// address leaves the list),
// comes back when it answers /readyz and is listed again, at the version /version then
// gives, and its step ends once every server reaches what the others serve. Steps to the
// same version in a row are a hop. The result is what Run writes, asserted the same way;
// its Unobserved says why nothing (or not all) could be judged.
func Observe(ctx context.Context, c clusters.Cluster, o ObserveOptions) (*Result, error) {
	o.Poll = cmp.Or(o.Poll, 250*time.Millisecond)
	o.Converge = cmp.Or(o.Converge, time.Minute)
	target, err := c.Target(ctx)
	if err != nil {
		return nil, err
	}
	holders, _ := c.(IdentityHolders)
	w := &watcher{o: o, target: target, listing: asListing(c), holders: holders, servers: map[string]*serverState{}, why: map[int]string{}}
	r := &Result{Servers: len(target.Endpoints), Seed: o.Seed, Window: o.Window.Seconds(), Started: time.Now()}
	w.r = r
	var names []string
	for _, e := range target.Endpoints {
		w.servers[e.Name] = &serverState{up: true, version: e.Version, step: -1, pending: -1}
		names = append(names, e.Name)
	}
	for name, p := range w.processes(ctx, names...) {
		w.servers[name].proc = p
	}
	r.From, r.Initial = oldest(target), initial(target)
	w.l = newLoad(target, Options{Seed: o.Seed, Interval: o.Interval, Namespace: o.Namespace}, r.Started)
	w.l.track(ctx)
	if o.Owners {
		if w.own, err = carry(ctx, target, o.Namespace, true, 0, func(f string, a ...any) { w.progress(f, a...) }); err != nil {
			return nil, err
		}
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	w.l.start(loadCtx, &wg)
	w.progress("observing %d apiservers (%s) for at most %s%s: polling each every %s\n", len(target.Endpoints),
		strings.Join(w.versions(), ", "), o.For, untilText(o.Until), o.Poll)
	w.watch(ctx)
	stopLoad()
	wg.Wait()
	w.finish()
	r.Duration = w.l.since()
	r.Owners = w.own.end(context.WithoutCancel(ctx), target)
	w.l.check(context.WithoutCancel(ctx), r)
	return r, nil
}

func untilText(v string) string {
	if v == "" {
		return ""
	}
	return ", or until every apiserver runs " + v
}

func asListing(c clusters.Cluster) clusters.Listing {
	l, _ := c.(clusters.Listing)
	return l
}

// oldest is the lowest version the target's servers run: where the upgrade starts from.
func oldest(t *framework.Target) string {
	var vs []string
	for _, e := range t.Endpoints {
		vs = append(vs, e.Version)
	}
	return slices.MinFunc(vs, framework.CompareVersions)
}

// serverState is what the watcher last saw of one apiserver.
type serverState struct {
	up      bool
	misses  int     // failed polls in a row while up
	lastUp  float64 // when it last answered ready (and was listed)
	version string
	step    int // index in r.Steps of its step under way, -1 when none
	// proc names its process as last seen; pending is the index in r.Steps of its step
	// back but not yet shown a restart (-1: none), tried when that was last looked at, and
	// rebase when to read proc again after a restart (0: no need).
	proc          process
	pending       int
	tried, rebase float64
}

type watcher struct {
	o       ObserveOptions
	target  *framework.Target
	listing clusters.Listing
	holders IdentityHolders // nil: the cluster reads no identity leases
	l       *load
	r       *Result
	own     *carrier // nil: no owners carried
	servers map[string]*serverState
	// upSince is when every server was last seen back with a step not yet converged.
	upSince float64
	// pending is what the last convergence round found unreached, for a step's violation.
	pending string
	joined  []string
	// why says, by index in r.Steps, what was compared and stayed for a step back that
	// nothing showed a restart yet: the reason of its readiness gap.
	why map[int]string
}

func (w *watcher) progress(format string, a ...any) {
	if w.o.Progress != nil {
		fmt.Fprintf(w.o.Progress, format, a...)
	}
}

// versions are the servers at their versions, by name.
func (w *watcher) versions() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(w.servers)) {
		out = append(out, name+" at "+w.servers[name].version)
	}
	return out
}

// watch polls until ctx ends, For passes or Until is reached.
func (w *watcher) watch(ctx context.Context) {
	tick := time.NewTicker(w.o.Poll)
	defer tick.Stop()
	lastEnd := 0.0
	for {
		select {
		case <-ctx.Done():
			w.r.Unobserved = "interrupted"
			return
		case <-tick.C:
		}
		t := w.l.since()
		w.poll(ctx, t)
		if end := w.converge(ctx, t); end > 0 {
			lastEnd = end
		}
		if w.o.Until != "" && w.allAt(w.o.Until) && len(w.r.Steps) > 0 && t-lastEnd >= w.o.Settle.Seconds() {
			return
		}
		if t >= w.o.For.Seconds() {
			return
		}
	}
}

// stepMisses is how many polls in a row a server must fail before it has left.
const stepMisses = 2

// poll asks every server at once and opens or advances their steps.
func (w *watcher) poll(ctx context.Context, t float64) {
	listed := w.listed(ctx)
	seen := make([]probe, len(w.target.Endpoints))
	var wg sync.WaitGroup
	for i, e := range w.target.Endpoints {
		wg.Add(1)
		go func() { defer wg.Done(); seen[i] = ask(ctx, e, w.bound()) }()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return // the watch was cut short: the probes failed for that, not the servers
	}
	for i, e := range w.target.Endpoints {
		s, p := w.servers[e.Name], seen[i]
		up := p.ready && (listed == nil || listed[e.Name])
		switch {
		case s.up && up:
			s.lastUp, s.misses = t, 0
		case s.up && !up:
			// One slow or failed answer is no restart: a step opens at the second in a row.
			if s.misses++; s.misses < stepMisses {
				continue
			}
			// It left after its last good answer: the step starts there, so what its
			// leaving does to the others (a peer dropped as it deletes its lease) is in
			// the step's window, not before it.
			w.leftFirst(e.Name, s.lastUp)
			w.r.Steps = append(w.r.Steps, Step{Server: e.Name, From: s.version, Start: s.lastUp})
			s.up, s.step, s.pending = false, len(w.r.Steps)-1, -1
			w.progress("%.1fs: %s left (%s)\n", t, e.Name, p.why(listed == nil || listed[e.Name]))
		case !s.up && up:
			s.up, s.version, s.lastUp = true, p.version, t
			e.Version = p.version // what the load tracks from now on is by version
			w.back(ctx, e.Name, s, t)
		}
	}
	w.confirm(ctx, t)
}

// bound is how long one look at one server may take.
func (w *watcher) bound() time.Duration { return max(4*w.o.Poll, 2*time.Second) }

// listed are the servers the cluster lists now (nil when it lists none, or could not be
// asked: the probes alone decide then).
func (w *watcher) listed(ctx context.Context) map[string]bool {
	if w.listing == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 4*w.o.Poll)
	defer cancel()
	names, joined, err := w.listing.Listed(ctx)
	if err != nil {
		return nil
	}
	for _, j := range joined {
		if !slices.Contains(w.joined, j) {
			w.joined = append(w.joined, j)
			w.progress("%s is listed as an apiserver the watch did not start with: it is not loaded (only the servers found at the start are)\n", j)
		}
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// converge ends the steps whose server is back once every server is up and reaches what
// the others serve, returning when (0: nothing ended).
func (w *watcher) converge(ctx context.Context, t float64) float64 {
	var back []int
	for i, st := range w.r.Steps {
		if st.Up > 0 && st.End == 0 {
			back = append(back, i)
		}
	}
	if len(back) == 0 || !w.allUp() {
		w.upSince = 0
		return 0
	}
	if w.upSince == 0 {
		w.upSince = t
	}
	round, cancel := context.WithTimeout(ctx, 2*time.Second)
	pending, err := framework.Unreached(round, w.target)
	cancel()
	// Unreached has read every server's discovery again: what a server back at a new
	// version serves is read through every server from now on, as clients that discovered
	// it would, not only once the cluster converged (which an inert proxy never lets it).
	w.l.track(ctx)
	converged := err == nil && len(pending) == 0
	// A round that could not read a server (one just leaving) keeps the last round's
	// finding: what the clients were getting 404 for is the useful part.
	if err == nil {
		w.pending = "still 404 through " + strings.Join(pending, "; ")
	} else if w.pending == "" {
		w.pending = err.Error()
	}
	if !converged && t-w.upSince < w.o.Converge.Seconds() {
		return 0
	}
	what := "converged"
	for _, i := range back {
		if !converged {
			w.unconverged(i, t, fmt.Sprintf("the servers did not reach what the others serve within %s (%s)", w.o.Converge, w.pending))
			what = "not converged within " + w.o.Converge.String()
			continue
		}
		w.r.Steps[i].End = t
		w.servers[w.r.Steps[i].Server].step = -1
	}
	if converged {
		w.pending = ""
	}
	if err := w.target.Refresh(ctx); err == nil {
		w.l.track(ctx)
		w.own.add(ctx, w.target, t)
	}
	w.progress("%.1fs: %s: %s\n", t, what, strings.Join(w.versions(), ", "))
	return t
}

// leftFirst ends, at start, every step whose server is back but whose cluster had not
// converged when another server left at start: its window covered the proxy learning its
// peers, and the next restart does not extend it. A violation: clients got 404 for what a
// peer served in between (an inert proxy's harm, or an upgrade moving on too soon).
func (w *watcher) leftFirst(leaving string, start float64) {
	for i, st := range w.r.Steps {
		if st.Up > 0 && st.End == 0 {
			w.unconverged(i, start, fmt.Sprintf("%s left at %.1fs before the servers reached what the others serve (%s)", leaving, start, cmp.Or(w.pending, "not compared yet")))
		}
	}
	w.upSince = 0
}

// unconverged ends step i at t without convergence, saying why, as a violation.
func (w *watcher) unconverged(i int, t float64, why string) {
	st := &w.r.Steps[i]
	st.End, st.Unconverged = t, why
	w.r.Violations = append(w.r.Violations, fmt.Sprintf("%s back at %s at %.1fs: %s", st.Server, st.To, st.Up, why))
	w.servers[st.Server].step = -1
}

func (w *watcher) allUp() bool {
	for _, s := range w.servers {
		if !s.up {
			return false
		}
	}
	return true
}

func (w *watcher) allAt(version string) bool {
	for _, s := range w.servers {
		if !s.up || !SameRelease(s.version, version) || s.step >= 0 {
			return false
		}
	}
	return true
}

// finish groups the steps into hops (steps in a row to one version) and says what was not
// seen through: a server that left and never came back, no step at all, Until not reached.
func (w *watcher) finish() {
	r := w.r
	end := w.l.since()
	w.splitGaps()
	var notBack, unsettled []string
	for i := range r.Steps {
		st := &r.Steps[i]
		switch {
		case st.Up == 0:
			// It never came back: its window runs to the end, its version stays.
			st.To, st.End, st.Unfinished = st.From, end, true
			notBack = append(notBack, fmt.Sprintf("%s (left at %.1fs)", st.Server, st.Start))
		case st.End == 0:
			st.End, st.Unfinished = end, true
			unsettled = append(unsettled, fmt.Sprintf("%s (back at %s at %.1fs)", st.Server, st.To, st.Up))
		}
	}
	r.Path = []string{r.From}
	for i := range r.Steps {
		st := &r.Steps[i]
		if st.Up == 0 && len(r.Hops) > 0 {
			// Gone for good: part of the hop under way, whose window it keeps open.
			st.Hop = len(r.Hops)
			r.Hops[len(r.Hops)-1].End = max(r.Hops[len(r.Hops)-1].End, st.End)
			continue
		}
		if n := len(r.Hops); n == 0 || r.Hops[n-1].To != st.To {
			hop := Hop{From: st.From, To: st.To, Direction: Direction(st.From, st.To), Start: st.Start}
			if st.From == st.To {
				hop.Direction = Restart // a server restarted at its version: no version to add
			} else {
				r.Path = append(r.Path, st.To)
			}
			r.Hops = append(r.Hops, hop)
		}
		st.Hop = len(r.Hops)
		r.Hops[len(r.Hops)-1].End = st.End
	}
	r.To = r.Path[len(r.Path)-1]
	var why []string
	if len(notBack) > 0 {
		why = append(why, "left and did not come back: "+strings.Join(notBack, ", "))
	}
	if len(unsettled) > 0 {
		why = append(why, "back but not converged when the watch ended: "+strings.Join(unsettled, ", "))
	}
	if !r.restarted() {
		none := fmt.Sprintf("no apiserver restarted in %.0fs of watching", end)
		if len(r.Gaps) > 0 {
			none += "; not restarts but readiness gaps: " + r.gapsText()
		}
		why = append(why, none)
	}
	if w.o.Until != "" && !w.allAt(w.o.Until) {
		why = append(why, "not every apiserver reached "+w.o.Until+": "+strings.Join(w.versions(), ", "))
	}
	if r.Unobserved != "" {
		why = append([]string{r.Unobserved}, why...)
	}
	r.Unobserved = strings.Join(why, "; ")
}

// probe is one look at one apiserver.
type probe struct {
	ready   bool
	status  int
	err     string
	version string
}

func (p probe) why(listed bool) string {
	switch {
	case !listed:
		return "its address left the default/kubernetes EndpointSlice"
	case p.err != "":
		return "/readyz: " + p.err
	default:
		return fmt.Sprintf("/readyz answered %d", p.status)
	}
}

// ask is /readyz and, when ready, /version of e, each within bound.
func ask(ctx context.Context, e *framework.Endpoint, bound time.Duration) probe {
	ready := e.Do(ctx, framework.Request{Path: "/readyz", Timeout: bound})
	p := probe{status: ready.Status, err: ready.Err, ready: ready.Status == 200}
	if !p.ready {
		return p
	}
	v := e.Do(ctx, framework.Request{Path: "/version", Timeout: bound})
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if v.Status != 200 || json.Unmarshal(v.Body, &info) != nil || info.GitVersion == "" {
		p.ready, p.err = false, "/version did not answer"
		return p
	}
	p.version = info.GitVersion
	return p
}

// SameRelease says whether two versions name one release, major.minor.patch, whatever a
// distribution adds (v1.30.2-eks-a1b2c3, v1.30.2+k3s1 and v1.30.2 are one).
func SameRelease(a, b string) bool { return Release(a) == Release(b) }

// Release is the release v names, major.minor.patch without the v, whatever a
// distribution adds: v1.30.2-eks-a1b2c3 and v1.30.2+k3s1 are 1.30.2.
func Release(v string) string {
	v, _, _ = strings.Cut(v, "+")
	v, _, _ = strings.Cut(v, "-")
	return strings.TrimPrefix(v, "v")
}
