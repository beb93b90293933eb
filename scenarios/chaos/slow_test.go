package chaos_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// TestSlowClientOnTheReference holds slow-loris connections (headers, a create's body, a
// watch read a byte a second) to the entry of a load, through upstream's own proxy, the
// reference, and the reference with FlawBodiesInTurn: the first two serve the load as if
// nothing happened; the flawed one makes the load wait behind a trickling body, which the
// slow-client verdict catches. The fault is held 8 s, shorter than every front's timeout:
// when the fronts cut slow connections is measured in the longer real runs
// (docs/chaos.md, "Slow clients and slow bodies").
func TestSlowClientOnTheReference(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := cluster(t, localtest.Skewed())
	opts := chaos.Options{For: 8 * time.Second, Interval: 200 * time.Millisecond, Recover: time.Minute, Seed: 28}
	measure := func(name string, target *framework.Target) chaos.Outcome {
		route := jobsRoute(t, target)
		opts.Seed++ // the load's objects are named by the seed: a name of its own per run
		o := chaos.Measure(ctx, name, route, faults.SlowClient(route.Entry, route, 4), opts)
		t.Logf("%s: first error %.2f s (%v), slowest request %.2f s, reads %d, writes %d; %s",
			name, o.TimeToFirstError, o.Errors, o.SlowestAnswer, o.Reads, o.Writes, strings.Join(o.Observed, "; "))
		if o.Error != "" || o.Skipped != "" {
			t.Fatalf("%s: %s%s", name, o.Error, o.Skipped)
		}
		if len(o.Observed) != 3 {
			t.Errorf("%s: want a note per kind of slow connection, got %q", name, o.Observed)
		}
		for _, n := range o.Observed {
			if strings.Contains(n, "never opened") {
				t.Errorf("%s: a slow connection never opened: %s", name, n)
			}
		}
		return o
	}

	upstream := localtest.Upstream(t, c)
	if v := chaos.Violations([]chaos.Outcome{measure("upstream", upstream)}); len(v) > 0 {
		t.Errorf("upstream's apiserver let slow clients show: %q", v)
	}

	for _, flaw := range []peerproxy.Flaw{peerproxy.NoFlaw, peerproxy.FlawBodiesInTurn} {
		target, stop := localtest.Reference(t, c, flaw)
		v := chaos.Violations([]chaos.Outcome{measure(target.Kind, target)})
		stop()
		switch {
		case flaw == peerproxy.NoFlaw && len(v) > 0:
			t.Errorf("the reference let slow clients show: %q", v)
		case flaw != peerproxy.NoFlaw && !hasStall(v):
			t.Errorf("the reference with %s makes the load wait behind a trickling body, and the verdict must say so: %q", flaw, v)
		}
	}
}

func hasStall(v []string) bool {
	for _, s := range v {
		if strings.Contains(s, "the front let one client hold up others") {
			return true
		}
	}
	return false
}
