package races_test

import (
	"context"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/races"
)

// TestRacesAgainstUpstream provokes every race on real apiservers of two versions and
// asserts upstream's documented outcome, logging the windows measured.
func TestRacesAgainstUpstream(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "races", Servers: localtest.Pair()})
	target := localtest.Upstream(t, c)
	routes := framework.Routes(target, "list")
	if len(routes) == 0 {
		t.Fatal("no skewed GVR")
	}
	env := races.Env{Route: routes[0], Converge: c.WaitConverged, Interval: 100 * time.Millisecond, Observe: 3 * time.Second, Bound: 60 * time.Second}
	// Every race of the registry, in its order, as the races command runs them.
	for _, name := range races.Names() {
		race, err := races.ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		o := race.Run(ctx, env)
		t.Logf("%s: window %.2fs; spurious 404s %d; seen %s", o.Race, o.Window, o.Spurious404, o.Seen)
		if !o.Passed() {
			t.Errorf("%s: documented %q; %v", o.Race, o.Documented, o.Violations)
		}
		if err := c.WaitConverged(ctx); err != nil {
			t.Fatalf("after %s: %v", o.Race, err)
		}
	}
}
