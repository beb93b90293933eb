package chaos

import (
	"context"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
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
		if err != nil || f != nil || !strings.Contains(skip, string(k.On)) {
			t.Errorf("%s on bare endpoints: fault %v, skip %q, error %v; want a skip naming %q", k.Name, f, skip, err, k.On)
		}
	}
	if _, _, err := r.Fault(context.Background(), "nope"); err == nil {
		t.Error("an unknown fault: no error")
	}
}
