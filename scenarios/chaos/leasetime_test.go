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
)

// TestLeaseTimeFaults: a server whose clock is 2 h behind renews its registration with a
// renewTime past the lease's hour. Upstream's peer proxy never reads renewTime and the
// reference judges leases by its own clock, so clients notice nothing; the reference
// flawed to trust renew times drops the peer and answers 404 for what it serves.
func TestLeaseTimeFaults(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	seed := int64(27)
	measure := func(t *testing.T, name string, target *framework.Target) chaos.Outcome {
		t.Helper()
		route := jobsRoute(t, target)
		f, skip, err := chaos.NewRunner(target, route).Fault(ctx, "clock-behind-2h")
		if err != nil || skip != "" {
			t.Fatalf("%s: clock-behind-2h: %v%s", name, err, skip)
		}
		seed++ // the load's objects are named by the seed: a measurement of its own, objects of its own
		o := chaos.Measure(ctx, name, route, f, chaos.Options{For: 6 * time.Second, Interval: 200 * time.Millisecond, Recover: time.Minute, Seed: seed})
		t.Logf("%s: %s; statuses %v, errors %v, first error %.2fs, recovered in %.2fs", name, o.Description, o.Statuses, o.Errors, o.TimeToFirstError, o.TimeToRecover)
		if o.Error != "" || o.Skipped != "" {
			t.Fatalf("%s: %s%s", name, o.Error, o.Skipped)
		}
		if err := target.Converge(ctx); err != nil {
			t.Fatal(err)
		}
		return o
	}

	t.Run("upstream", func(t *testing.T) {
		upstream := localtest.Upstream(t, cluster(t, localtest.Skewed()))
		if v := chaos.Violations([]chaos.Outcome{measure(t, "upstream", upstream)}); len(v) > 0 {
			t.Errorf("upstream: %v", v)
		}
	})

	t.Run("reference", func(t *testing.T) {
		// The reference's own column: its apiservers' proxy is off, or they would route
		// what the reference wrongly forgot (as `skewcheck chaos` does).
		c := cluster(t, localtest.WithoutPeerProxy(localtest.Skewed()...))
		for _, flaw := range []peerproxy.Flaw{peerproxy.NoFlaw, peerproxy.FlawTrustRenewTime} {
			target, stop := localtest.Reference(t, c, flaw)
			o := measure(t, target.Kind, target)
			stop()
			v := chaos.Violations([]chaos.Outcome{o})
			switch {
			case flaw == peerproxy.NoFlaw && len(v) > 0:
				t.Errorf("the reference: %v", v)
			case flaw != peerproxy.NoFlaw && (o.Spurious404 == 0 || !strings.Contains(strings.Join(v, "\n"), "must go unnoticed")):
				t.Errorf("the reference flawed to %s must answer 404 for its skewed peer's resources and fail the verdict; got %v, statuses %v", flaw, v, o.Statuses)
			}
		}
	})
}
