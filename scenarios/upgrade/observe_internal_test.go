package upgrade

import (
	"strings"
	"testing"
	"time"
)

// TestWatchedStepsMakeHops: steps seen in a row to one version are one hop, from the
// version the first left; a step to another version starts the next; a server that left
// and never came back keeps its window open to the end of the watch, in the hop under way,
// and the result says so; a restart at the same version (shown by its identity lease's new
// holder) is a hop of its own, adding no version to the path.
func TestWatchedStepsMakeHops(t *testing.T) {
	w := &watcher{o: ObserveOptions{Until: "v1.36.3"}, l: &load{t0: time.Now().Add(-time.Minute)},
		servers: map[string]*serverState{"a": {up: true, version: "v1.36.3", step: -1}, "b": {up: true, version: "v1.36.3", step: -1}, "c": {version: "v1.35.4", step: 4}}}
	w.r = &Result{From: "v1.35.4", Steps: []Step{
		{Server: "a", From: "v1.35.4", To: "v1.36.3", Start: 10, Up: 12, End: 13},
		{Server: "b", From: "v1.35.4", To: "v1.36.3", Start: 20, Up: 22, End: 24},
		{Server: "a", From: "v1.36.3", To: "v1.35.4", Start: 30, Up: 32, End: 33},
		{Server: "a", From: "v1.35.4", To: "v1.36.3", Start: 40, Up: 42, End: 43},
		{Server: "c", From: "v1.35.4", Start: 50},
	}}
	w.finish()
	r := w.r
	if got := strings.Join(r.Path, ","); got != "v1.35.4,v1.36.3,v1.35.4,v1.36.3" {
		t.Errorf("path %s, want up, down and up again", got)
	}
	if len(r.Hops) != 3 || r.Hops[0].Start != 10 || r.Hops[0].End != 24 || r.Hops[1].Direction != Downgrade || r.Hops[2].End < 60 {
		t.Errorf("hops %+v: want three, the first from 10 to 24, the second a downgrade, the third open to the end", r.Hops)
	}
	if len(r.Steps) != 5 || r.Steps[1].Hop != 1 || r.Steps[3].Hop != 3 || r.Steps[4].Hop != 3 || !r.Steps[4].Unfinished {
		t.Errorf("steps %+v: want five, numbered by hop, the last unfinished", r.Steps)
	}
	for _, want := range []string{"c (left at 50.0s)", "not every apiserver reached v1.36.3"} {
		if !strings.Contains(r.Unobserved, want) {
			t.Errorf("unobserved %q lacks %q", r.Unobserved, want)
		}
	}

	restart := &watcher{o: ObserveOptions{}, l: &load{t0: time.Now().Add(-time.Minute)},
		servers: map[string]*serverState{"a": {up: true, version: "v1.36.3", step: -1}}}
	restart.r = &Result{From: "v1.36.3", Steps: []Step{{Server: "a", From: "v1.36.3", To: "v1.36.3", Start: 5, Up: 8, End: 9,
		Confirmed: "its identity lease has a new holder (apiserver-a_2, was apiserver-a_1)"}}}
	restart.finish()
	if h := restart.r.Hops; len(h) != 1 || h[0].Direction != Restart || len(restart.r.Path) != 1 || restart.r.Unobserved != "" {
		t.Errorf("a restart at the same version: hops %+v, path %v, unobserved %q; want one restart hop, the path unchanged", h, restart.r.Path, restart.r.Unobserved)
	}

	quiet := &watcher{o: ObserveOptions{}, l: &load{t0: time.Now()}, servers: map[string]*serverState{}}
	quiet.r = &Result{From: "v1.36.3"}
	quiet.finish()
	if !strings.Contains(quiet.r.Unobserved, "no apiserver restarted") || len(quiet.r.Hops) != 0 {
		t.Errorf("a watch that saw no restart: %q, hops %v", quiet.r.Unobserved, quiet.r.Hops)
	}
}

// TestSameRelease: a distribution's suffix does not make another release.
func TestSameRelease(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"v1.30.2-eks-a1b2c3", "v1.30.2", true},
		{"v1.30.2+k3s1", "1.30.2", true},
		{"v1.30.2", "v1.30.20", false},
		{"v1.31.0", "v1.30.0", false},
	} {
		if got := SameRelease(tc.a, tc.b); got != tc.same {
			t.Errorf("SameRelease(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}
