package upgrade

import (
	"fmt"
	"sort"
	"strings"
)

// minReadsOutside is how many successful reads each server must give outside every window:
// with fewer, "nothing failed" stands on nothing. A run's first --settle alone gives each
// server tens (a read and a write every --interval, 100 ms by default); 5 leaves room for a
// slow machine, and none for a server that answered nothing.
const minReadsOutside = 5

// Judge asserts what a run's events show against its steps and faults: every answer
// (Classify), enough traffic to stand on, no acknowledged write lost, and every watch
// resumed after each restart of its server, and every dependent of the owners carried
// through still there while its owner stands. The events' Lost, and the owners' families,
// must be set (Run and Observe set them from what they read at the end).
func Judge(r *Result) {
	r.classify()
	r.judgeTraffic()
	r.judgeLost()
	r.judgeResumes()
	r.judgeOwners()
}

// Classify counts r.Events against r.Steps and r.Faults and in every period, and violates
// each failed answer outside every window and each inside one that no allowance covers
// (exported for tests and for re-reading a saved run with another window). The counts are
// made anew; the violations are added to r.Violations, which a saved run's already hold:
// empty them first.
func Classify(r *Result) { r.classify() }

func (r *Result) classify() {
	sort.Slice(r.Events, func(i, j int) bool { return r.Events[i].T < r.Events[j].T })
	r.Failures = nil
	c := &r.Counts
	c.Reads, c.Writes, c.WatchResumes = 0, 0, 0
	c.NotFoundOutside, c.NotFoundInside, c.UnavailableOutside, c.UnavailableInside = 0, 0, 0, 0
	c.FailedOutside, c.FailedInside, c.Disallowed = 0, 0, 0
	for _, e := range r.Events {
		switch e.Kind {
		case "read":
			r.Counts.Reads++
		case "write":
			r.Counts.Writes++
		case "watch-resume":
			r.Counts.WatchResumes++
		}
		kind := failure(e)
		if kind == "" {
			continue
		}
		ws := r.windowsOf(e)
		in := len(ws) > 0
		r.countNotFoundAndUnavailable(e, in)
		if !in {
			r.Counts.FailedOutside++
			r.addFailure(e, kind, false, "")
			r.violate(e.T, fmt.Sprintf("%s for %s through %s at %.1fs, outside every step window", kind, what(e), e.Server, e.T))
			continue
		}
		r.Counts.FailedInside++
		allowed := r.allowed(e, kind, ws)
		r.addFailure(e, kind, true, allowed)
		if allowed == "" {
			r.Counts.Disallowed++
			var names []string
			for _, w := range ws {
				names = append(names, w.name)
			}
			r.violate(e.T, fmt.Sprintf("%s for %s through %s at %.1fs, in %s, where an upgrade never answers that", kind, what(e), e.Server, e.T, strings.Join(names, " and ")))
		}
	}
	r.sortFailures()
	r.tallyPeriods()
}

// countNotFoundAndUnavailable keeps the 404 and 503 counts of reads and writes, inside and
// outside the windows, the figures nights have always compared.
func (r *Result) countNotFoundAndUnavailable(e Event, in bool) {
	if e.Kind != "read" && e.Kind != "write" {
		return
	}
	switch {
	case e.Status == 404 && in:
		r.Counts.NotFoundInside++
	case e.Status == 404:
		r.Counts.NotFoundOutside++
	case e.Status == 503 && in:
		r.Counts.UnavailableInside++
	case e.Status == 503:
		r.Counts.UnavailableOutside++
	}
}

// what names the request an event answered, for a violation.
func what(e Event) string {
	if e.Kind == "watch-end" {
		return "the watch of the load's configmaps"
	}
	return "a " + e.Kind + " of " + e.GVR
}

// judgeTraffic: zero traffic is never a pass. Every hop has writes acknowledged in it (from
// its start to the next hop's, the first from the beginning), and every server gives
// minReadsOutside successful reads outside every window.
func (r *Result) judgeTraffic() {
	r.Counts.AckedWrites = 0
	acked := map[int]int{}
	reads := map[string]int{}
	for _, e := range r.Events {
		switch {
		case e.Kind == "write" && e.Name != "":
			r.Counts.AckedWrites++
			acked[r.hopAt(e.T)]++
		case e.Kind == "read" && e.Status == 200 && !r.inWindow(e):
			reads[e.Server]++
		}
	}
	for h, hop := range r.Hops {
		if acked[h] == 0 {
			r.violate(hop.Start, fmt.Sprintf("hop %d (%s -> %s): no write was acknowledged from its start to the next hop's, so nothing shows writes survived it", h+1, hop.From, hop.To))
		}
	}
	// Neither is any one hop's.
	if len(r.Hops) == 0 && r.Counts.AckedWrites == 0 {
		r.Violations = append(r.Violations, "no write was acknowledged in the whole run")
	}
	for _, s := range r.servers() {
		if n := reads[s]; n < minReadsOutside {
			r.Violations = append(r.Violations, fmt.Sprintf("%s gave %d successful reads outside every window, fewer than %d: nothing shows it served", s, n, minReadsOutside))
		}
	}
}

// servers are the run's servers by name: those it began with, and any an event or a step
// names.
func (r *Result) servers() []string {
	seen := map[string]bool{}
	for s := range r.Initial {
		seen[s] = true
	}
	for _, s := range r.Steps {
		seen[s.Server] = true
	}
	for _, e := range r.Events {
		seen[e.Server] = true
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// judgeLost violates, per hop, the acknowledged writes gone at the end.
func (r *Result) judgeLost() {
	r.Counts.LostWrites = 0
	lostByHop := map[int]int{}
	for _, e := range r.Events {
		if e.Lost {
			r.Counts.LostWrites++
			lostByHop[r.hopAt(e.T)]++
		}
	}
	for h := range r.Hops {
		if n := lostByHop[h]; n > 0 {
			r.violate(r.Hops[h].Start, fmt.Sprintf("%d acknowledged writes of hop %d (%s -> %s) are gone", n, h+1, r.Hops[h].From, r.Hops[h].To))
		}
	}
}

// judgeResumes violates every restart after which its server's watch did not resume: a
// stream that delivered events after one was cut short, or after a reconnect that got no
// stream, before the server's next restart.
func (r *Result) judgeResumes() {
	r.Counts.WatchesNotResumed = nil
	for i, st := range r.Steps {
		if st.Unfinished {
			continue // the watch ended before the server was back: nothing to resume yet
		}
		until := r.Duration + 1
		for _, next := range r.Steps[i+1:] {
			if next.Server == st.Server {
				until = next.Start
				break
			}
		}
		resumed := false
		for _, e := range r.Events {
			if e.Server == st.Server && e.Kind == "watch-resume" && e.T > st.Start && e.T <= until {
				resumed = true
				break
			}
		}
		if !resumed {
			r.Counts.WatchesNotResumed = append(r.Counts.WatchesNotResumed, st.Server)
			r.violate(st.Start, fmt.Sprintf("the watch through %s did not resume after its restart at %s (hop %d)", st.Server, st.To, st.Hop))
		}
	}
}
