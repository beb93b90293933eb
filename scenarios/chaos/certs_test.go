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

// measureCert runs the named certificate fault on target's batch/v1 jobs route for 3 s.
func measureCert(t *testing.T, ctx context.Context, name, tname string, target *framework.Target) chaos.Outcome {
	t.Helper()
	route := jobsRoute(t, target)
	f, skip, err := chaos.NewRunner(target, route).Fault(ctx, name)
	if err != nil || skip != "" {
		t.Fatalf("%s on %s: %v%s", name, tname, err, skip)
	}
	o := chaos.Measure(ctx, tname, route, f, chaos.Options{For: 3 * time.Second, Interval: 200 * time.Millisecond, Recover: time.Minute, Seed: 28})
	t.Logf("%s on %s: first error %.2fs, errors %v, 503 after %.2fs, recovered in %.2fs, statuses %v", name, tname,
		o.TimeToFirstError, o.Errors, o.TimeTo503, o.TimeToRecover, o.Statuses)
	return o
}

// TestCertificateFaults replaces the serving certificate of the only server of batch/v1
// while jobs are read and written through another: re-issued by the same CA, upstream's
// proxy notices nothing; expired, once its peers must handshake again, upstream answers
// 503 and never 404, and recovers once the original is served again. The reference with
// the flaw untrusted-peer-not-found answers 404 there, and the verdict says so.
func TestCertificateFaults(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := cluster(t, localtest.Skewed())
	upstream := localtest.Upstream(t, c)
	for _, name := range []string{"rotate-serving", "expired-serving"} {
		o := measureCert(t, ctx, name, "upstream", upstream)
		if v := chaos.Violations([]chaos.Outcome{o}); len(v) > 0 {
			t.Errorf("upstream %s: %s", name, strings.Join(v, "; "))
		}
		if err := upstream.Converge(ctx); err != nil {
			t.Fatal(err)
		}
	}
	flawed, _ := localtest.Reference(t, c, peerproxy.FlawUntrustedPeerNotFound)
	o := measureCert(t, ctx, "expired-serving", "reference-untrusted-peer-not-found", flawed)
	v := strings.Join(chaos.Violations([]chaos.Outcome{o}), "; ")
	if !strings.Contains(v, "spurious 404s") {
		t.Errorf("the flawed reference answered %v under expired-serving; the verdict (%q) must name its 404s", o.Statuses, v)
	}
}
