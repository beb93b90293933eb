package peerproxy_test

import (
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites"
	"github.com/skewcheck/skewcheck/suites/chaos"
	"github.com/skewcheck/skewcheck/suites/races"
)

// TestReferenceIsConformant: in front of three apiservers whose own proxy is off (an HA
// control plane mid-upgrade, two sharing a version), the reference passes every test of
// every profile outright; as a non-upstream target it gets no allowance for upstream's
// known deviations.
func TestReferenceIsConformant(t *testing.T) {
	integration.Require(t)
	c := localtest.Start(t, local.Config{Name: "ref", PeerPaths: true, Servers: localtest.WithoutPeerProxy(localtest.HighlyAvailable()...)})
	target, _ := localtest.Reference(t, c, peerproxy.NoFlaw)
	if target.Upstream {
		t.Fatal("a reference target must not get upstream's deviation allowance")
	}
	profiles := slices.Concat(suites.DefaultProfiles, []string{chaos.Profile, races.Profile})
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, suites.All(),
		framework.RunOptions{Profiles: profiles, ReportDir: t.TempDir(), Seed: 1})
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed || tc.KnownDeviation != "" {
			t.Errorf("%s: %s %s%s%s", tc.ID, tc.Result, tc.Failure, tc.SkipReason, tc.KnownDeviation)
		}
	}
	t.Log(report.ClosingLine(rep))
}

// TestReferenceSoak: the reference passes the soak profile outright (no allowance), on a
// cluster of its own, as the profile runs alone. make soak's: each test waits minutes;
// the flaw that fails SOAK-001 is in TestFlawedReferenceFailsIdentityTests' table.
func TestReferenceSoak(t *testing.T) {
	integration.Require(t)
	if !integration.Soak() {
		t.Skip("make soak's: the soak profile waits out a 5-minute grace (make test leaves it out)")
	}
	c := localtest.Start(t, local.Config{Name: "refsoak", Servers: localtest.WithoutPeerProxy(localtest.Skewed()...)})
	target, _ := localtest.Reference(t, c, peerproxy.NoFlaw)
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, suites.All(),
		framework.RunOptions{Profiles: suites.SoakProfiles, ReportDir: t.TempDir(), Seed: 1})
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed || tc.KnownDeviation != "" {
			t.Errorf("%s: %s %s%s%s", tc.ID, tc.Result, tc.Failure, tc.SkipReason, tc.KnownDeviation)
		}
	}
}
