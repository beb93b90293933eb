package upgrade

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// holders is a cluster's identity leases, as IdentityHolders reads them.
type holders map[string]string

func (h holders) Holders(context.Context) (map[string]string, error) { return h, nil }

// unready is an apiserver at v1.36.3 whose /readyz fails on the polls in fail and whose
// /metrics it may not read.
func unready(t *testing.T, fail ...int32) *framework.Endpoint {
	return unreadyWith(t, func(w http.ResponseWriter) { http.Error(w, "forbidden", http.StatusForbidden) }, fail...)
}

// unreadyWith is unready, its /metrics answered by metrics.
func unreadyWith(t *testing.T, metrics func(http.ResponseWriter), fail ...int32) *framework.Endpoint {
	var polls atomic.Int32
	return fakeEndpoint(t, "a", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/readyz":
			n := polls.Add(1)
			for _, f := range fail {
				if f == n {
					http.Error(w, "[-]etcd failed", http.StatusInternalServerError)
					return
				}
			}
		case "/version":
			w.Write([]byte(`{"gitVersion":"v1.36.3"}`))
		case "/metrics":
			metrics(w)
		}
	})
}

// watching is a watcher of e alone, as Observe starts one.
func watching(ctx context.Context, e *framework.Endpoint, h IdentityHolders) *watcher {
	w := &watcher{o: ObserveOptions{Poll: 250 * time.Millisecond}, target: &framework.Target{Endpoints: []*framework.Endpoint{e}}, holders: h,
		l: &load{t0: time.Now()}, r: &Result{From: "v1.36.3"}, why: map[int]string{},
		servers: map[string]*serverState{e.Name: {up: true, version: "v1.36.3", step: -1, pending: -1}}}
	for name, p := range w.processes(ctx, e.Name) {
		w.servers[name].proc = p
	}
	return w
}

// Two failed /readyz polls while the identity lease keeps its holder are a readiness gap:
// no step, no hop, and the watch saw no restart, saying why.
func TestUnreadyWithTheSameHolderIsAGap(t *testing.T) {
	ctx := context.Background()
	w := watching(ctx, unready(t, 2, 3), holders{"a": "apiserver-x_1"})
	for tick := 1; tick <= 5; tick++ {
		w.poll(ctx, float64(tick))
	}
	w.finish()
	r := w.r
	if len(r.Steps) != 0 || len(r.Hops) != 0 || len(r.Gaps) != 1 || r.Gaps[0].Start != 1 || r.Gaps[0].End != 4 {
		t.Fatalf("steps %+v, hops %+v, gaps %+v; want one gap from 1s to 4s", r.Steps, r.Hops, r.Gaps)
	}
	for _, want := range []string{"no apiserver restarted", "not restarts but readiness gaps: a unready 1.0s to 4.0s",
		"its version stayed v1.36.3, and its identity lease's holder stayed apiserver-x_1"} {
		if !strings.Contains(r.Unobserved, want) {
			t.Errorf("unobserved %q lacks %q", r.Unobserved, want)
		}
	}
}

// The same gap with a new holder once the server is back is a restart at its version, a
// hop of its own; the holder it held before is no evidence.
func TestANewHolderIsARestart(t *testing.T) {
	ctx := context.Background()
	h := holders{"a": "apiserver-x_1"}
	w := watching(ctx, unready(t, 2, 3, 4), h)
	for tick := 1; tick <= 6; tick++ {
		if tick == 6 {
			h["a"] = "apiserver-x_2" // its first renewal, a second after it was back
		}
		w.poll(ctx, float64(tick))
	}
	w.finish()
	r := w.r
	if len(r.Gaps) != 0 || len(r.Steps) != 1 || r.Steps[0].Confirmed != "its identity lease has a new holder (apiserver-x_2, was apiserver-x_1)" ||
		len(r.Hops) != 1 || r.Hops[0].Direction != Restart {
		t.Fatalf("gaps %+v, steps %+v, hops %+v; want one restart, confirmed by the holder", r.Gaps, r.Steps, r.Hops)
	}
	if strings.Contains(r.Unobserved, "no apiserver restarted") {
		t.Errorf("unobserved %q", r.Unobserved)
	}
}

// Where the cluster reads no identity leases, a process_start_time_seconds that moved shows
// the restart.
func TestAMovedStartTimeIsARestart(t *testing.T) {
	ctx := context.Background()
	var started atomic.Value
	started.Store("1.7e+09")
	e := unreadyWith(t, func(w http.ResponseWriter) {
		fmt.Fprintf(w, "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %s\n", started.Load())
	}, 2, 3)
	w := watching(ctx, e, nil)
	for tick := 1; tick <= 4; tick++ {
		if tick == 3 {
			started.Store("1.70000005e+09")
		}
		w.poll(ctx, float64(tick))
	}
	w.finish()
	if st := w.r.Steps; len(w.r.Gaps) != 0 || len(st) != 1 || st[0].Confirmed != "its process_start_time_seconds moved (1.70000005e+09, was 1.7e+09)" {
		t.Errorf("gaps %+v, steps %+v; want one restart, shown by the start time", w.r.Gaps, st)
	}
}
