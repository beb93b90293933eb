package peerproxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites"
	"github.com/skewcheck/skewcheck/suites/chaos"
	"github.com/skewcheck/skewcheck/suites/races"
)

// TestReferenceIsConformant: in front of apiservers whose own proxy is off, the reference
// passes every test of every profile outright; as a non-upstream target it gets no
// allowance for upstream's known deviations.
func TestReferenceIsConformant(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	oldV, newV := integration.Versions()
	c, err := local.New(ctx, local.Config{Name: "ref", PeerPaths: true, Servers: []clusters.ServerSpec{
		{Version: oldV, DisablePeerProxy: true, ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		{Version: newV, DisablePeerProxy: true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete() })
	target, stop, err := front.On(ctx, c, front.PeerProxy{PeerTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if target.Upstream {
		t.Fatal("a reference target must not get upstream's deviation allowance")
	}
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, suites.All(),
		framework.RunOptions{Profiles: append(suites.DefaultProfiles, chaos.Profile, races.Profile), ReportDir: t.TempDir(), Seed: 1})
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed || tc.KnownDeviation != "" {
			t.Errorf("%s: %s %s%s%s", tc.ID, tc.Result, tc.Failure, tc.SkipReason, tc.KnownDeviation)
		}
	}
	t.Log(report.ClosingLine(rep))
}
