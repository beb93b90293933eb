package upgrade

import (
	"fmt"

	"github.com/skewcheck/skewcheck/framework"
)

// The classes of the load's requests, counted apart: a proxy may route them differently.
const (
	ClassRead       = "read"        // a GVR every version the run has seen serves (configmaps)
	ClassSkewedRead = "skewed-read" // a GVR some version the run has seen does not serve
	ClassWrite      = "write"
	ClassWatch      = "watch" // one watch stream, from its request to its end
)

// Classes in the order reports list them.
var Classes = []string{ClassRead, ClassSkewedRead, ClassWrite, ClassWatch}

// Tally is what one class of requests got in one period.
type Tally struct {
	Requests    int `json:"requests"`
	NotFound    int `json:"notFound,omitempty"`    // 404
	Unavailable int `json:"unavailable,omitempty"` // 503
	NoAnswer    int `json:"noAnswer,omitempty"`    // no HTTP answer (the server was down)
	// Rerouted: answered 2xx by a server whose version does not serve the GVR, so a peer
	// answered it (the Mixed Version Proxy's rerouting).
	Rerouted int `json:"rerouted,omitempty"`
	Lost     int `json:"lost,omitempty"`    // writes acknowledged in the period, gone at the end
	Resumes  int `json:"resumes,omitempty"` // watch streams that resumed and delivered events
	Relists  int `json:"relists,omitempty"` // watches told 410 Gone, which start over
	// Other: every other answer that was not the request's success (a status but 2xx, 404
	// and 503; a watch stream cut short), by kind in Result.Failures.
	Other int `json:"other,omitempty"`
}

// The kinds of period.
const (
	PeriodStep    = "step"    // one server's restart until converged, and the declared window after it
	PeriodMixed   = "mixed"   // a hop's mixed window: the first step's start to the last step's end
	PeriodOutside = "outside" // outside every step, fault and declared window
)

// Period is a span of the run and what each class of requests got in it. Step periods lie
// inside their hop's mixed window, so an answer counts in both.
type Period struct {
	Name    string            `json:"name"`
	Kind    string            `json:"kind"`
	Hop     int               `json:"hop"` // 1-based; 0 for outside
	Server  string            `json:"server,omitempty"`
	Start   float64           `json:"start"`
	End     float64           `json:"end"`
	Classes map[string]*Tally `json:"classes"`
}

// periods lays out the run's periods: per hop, each step (with its window), then the hop's
// mixed window; last, outside.
func (r *Result) periods() []Period {
	var out []Period
	for h, hop := range r.Hops {
		for _, s := range r.Steps {
			if s.Hop != h+1 {
				continue
			}
			out = append(out, Period{Name: fmt.Sprintf("hop %d step %s", h+1, s.Server), Kind: PeriodStep, Hop: h + 1,
				Server: s.Server, Start: s.Start, End: s.End + r.Window})
		}
		out = append(out, Period{Name: fmt.Sprintf("hop %d mixed %s -> %s", h+1, hop.From, hop.To), Kind: PeriodMixed, Hop: h + 1,
			Start: hop.Start, End: hop.End})
	}
	return append(out, Period{Name: "outside the windows", Kind: PeriodOutside, End: r.Duration})
}

// tallyPeriods counts every event in every period it falls in.
func (r *Result) tallyPeriods() {
	r.Periods = r.periods()
	for i := range r.Periods {
		r.Periods[i].Classes = map[string]*Tally{}
	}
	for _, e := range r.Events {
		class := r.class(e)
		if class == "" {
			continue
		}
		in := r.inWindow(e)
		for i := range r.Periods {
			p := &r.Periods[i]
			if p.Kind == PeriodOutside && in || p.Kind != PeriodOutside && (e.T < p.Start || e.T > p.End) {
				continue
			}
			t := p.Classes[class]
			if t == nil {
				t = &Tally{}
				p.Classes[class] = t
			}
			r.count(t, e)
		}
	}
}

// class names the class of an event; "" for one that is not a request's outcome.
func (r *Result) class(e Event) string {
	switch e.Kind {
	case "read":
		if _, skewed := r.ServedBy[e.GVR]; skewed {
			return ClassSkewedRead
		}
		return ClassRead
	case "write":
		return ClassWrite
	case "watch-end", "watch-resume", "watch-relist":
		return ClassWatch
	}
	return ""
}

func (r *Result) count(t *Tally, e Event) {
	switch e.Kind {
	case "watch-resume":
		t.Resumes++
		return
	case "watch-relist":
		t.Relists++
		return
	}
	t.Requests++
	switch {
	case e.Status == 404:
		t.NotFound++
	case e.Status == 503:
		t.Unavailable++
	case e.Status == 0:
		t.NoAnswer++
	case e.Status >= 200 && e.Status < 300 && r.rerouted(e):
		t.Rerouted++
	}
	if k := failure(e); k != "" && e.Status != 404 && e.Status != 503 && e.Status != 0 {
		t.Other++
	}
	if e.Lost {
		t.Lost++
	}
}

// rerouted: a read of a skewed GVR, answered by a server whose version at the time does
// not serve it.
func (r *Result) rerouted(e Event) bool {
	versions, skewed := r.ServedBy[e.GVR]
	if e.Kind != "read" || !skewed {
		return false
	}
	running := r.versionAt(e.Server, e.T)
	for _, v := range versions {
		if framework.CompareVersions(v, running) == 0 {
			return false
		}
	}
	return true
}

// versionAt is the version the server ran at t: its first (Initial, else the path's
// first), then each step's target from the moment the restarted server answered (Up).
func (r *Result) versionAt(server string, t float64) string {
	v := r.From
	if len(r.Path) > 0 {
		v = r.Path[0]
	}
	if first, ok := r.Initial[server]; ok {
		v = first
	}
	for _, s := range r.Steps {
		if s.Server == server && s.Up > 0 && t >= s.Up {
			v = s.To
		}
	}
	return v
}
