package chaos

import (
	"context"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// A target whose nodes declare nothing (one skewcheck does not run) has every fault
// skipped, naming what the fault acts on, and none failed; but a slow client, which is a
// client of the entry and needs nothing of the nodes, is made.
func TestRunnerSkipsWhatTheNodesLack(t *testing.T) {
	target := &framework.Target{Endpoints: []*framework.Endpoint{{Name: "a"}, {Name: "b"}}}
	r := NewRunner(target, framework.Route{Entry: target.Endpoints[0], Peer: target.Endpoints[1]})
	for _, k := range faults.Kinds() {
		f, skip, err := r.Fault(context.Background(), k.Name)
		if k.On == faults.Entry {
			if f == nil || skip != "" || err != nil {
				t.Errorf("%s on bare endpoints: fault %v, skip %q, error %v; want it made", k.Name, f, skip, err)
			}
			continue
		}
		if err != nil || f != nil || !strings.Contains(skip, k.On.Words()) {
			t.Errorf("%s on bare endpoints: fault %v, skip %q, error %v; want a skip naming %q", k.Name, f, skip, err, k.On.Words())
		}
	}
	if _, _, err := r.Fault(context.Background(), "nope"); err == nil {
		t.Error("an unknown fault: no error")
	}
}

// named is a fault that is only a name, for Runner.Fault's checks.
type named string

func (n named) Name() string               { return string(n) }
func (n named) Description() string        { return string(n) }
func (named) Inject(context.Context) error { return nil }
func (named) Heal(context.Context) error   { return nil }

// With three servers, a GVR the entry lacks may be served by two: a fault that must bring a
// 503 on one of them is skipped, naming the other (the proxy may send requests there); a
// fault that must go unnoticed, or is only measured, is not. With the GVR served by the
// faulted server alone, nothing is skipped for it.
func TestRunnerSkips503FaultsWhereAnotherServerServes(t *testing.T) {
	jobs := disc.GVR{Group: "batch", Version: "v1", Resource: "jobs"}
	both := disc.Set{jobs.Key(): jobs}
	a, b, c := &framework.Endpoint{Name: "apiserver-1", Served: disc.Set{}}, &framework.Endpoint{Name: "apiserver-2", Served: both}, &framework.Endpoint{Name: "apiserver-3", Served: both}
	target := &framework.Target{Endpoints: []*framework.Endpoint{a, b, c}}
	r := NewRunner(target, framework.Route{Entry: a, Peer: b, GVR: jobs})
	r.Make = func(name string) (faults.Fault, error) { return named(name), nil }
	for _, name := range []string{"crash", "freeze", "blackhole", "half-open", "partition"} {
		f, skip, err := r.Fault(context.Background(), name)
		if err != nil || f == nil || !strings.Contains(skip, "apiserver-3") || !strings.Contains(skip, "no 503 is due") {
			t.Errorf("%s with apiserver-3 serving the GVR too: fault %v, skip %q, error %v; want a skip naming apiserver-3", name, f, skip, err)
		}
	}
	for _, name := range []string{"slow-client", "stop", "latency"} {
		if _, skip, err := r.Fault(context.Background(), name); err != nil || strings.Contains(skip, "no 503 is due") {
			t.Errorf("%s with apiserver-3 serving the GVR too: skip %q, error %v; want no skip for it", name, skip, err)
		}
	}
	c.Served = disc.Set{}
	sole := NewRunner(target, framework.Route{Entry: a, Peer: b, GVR: jobs})
	sole.Make = r.Make
	if _, skip, err := sole.Fault(context.Background(), "crash"); err != nil || skip != "" {
		t.Errorf("crash on the GVR's only server: skip %q, error %v; want it made", skip, err)
	}
}
