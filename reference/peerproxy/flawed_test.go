package peerproxy_test

import (
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites"
	"github.com/skewcheck/skewcheck/suites/discovery"
	"github.com/skewcheck/skewcheck/suites/mvp"
	"github.com/skewcheck/skewcheck/suites/races"
	"github.com/skewcheck/skewcheck/suites/soak"
)

// flawEnv and flawReportEnv tell a child run of this test binary which flaw to give the
// reference and where to write its report: ginkgo runs once per process, and a run whose
// tests fail fails its process, so each flawed run is a process of its own.
const (
	flawEnv       = "SKEWCHECK_TEST_FLAW"
	flawReportEnv = "SKEWCHECK_TEST_FLAW_REPORT"
	flawFocusEnv  = "SKEWCHECK_TEST_FLAW_FOCUS"
	flawThreeEnv  = "SKEWCHECK_TEST_FLAW_THREE_SERVERS"
)

// TestFlawedReferenceFailsIdentityTests shows the identity tests (MVP-040..049), the
// watch streaming test (MVP-012), the one-hop test (MVP-014), legacy discovery (DISC-005),
// the stale-lease race (RACE-002), extensions (CRDs: MVP-050, MVP-051, DISC-006;
// aggregated APIs: MVP-052, MVP-053, DISC-007), the loop guard (MVP-030, MVP-031), a
// crashed peer's 503 (MVP-022), the nopeer view (DISC-002), the allowed user (MVP-041)
// a rejected token (MVP-048) and a deleted extension that comes back (SOAK-001) can
// fail: the reference made wrong in one
// way at a time fails the tests about that way, each of which must have run and failed
// saying why, its claim in the mutation matrix. Each flawed run is a child process
// (TestFlawedReferenceRun) with its own cluster. make test runs the three identity flaws,
// each wrong only on the proxied path; make soak the whole table; the mutation matrix
// every flaw through every profile.
func TestFlawedReferenceFailsIdentityTests(t *testing.T) {
	integration.Require(t)
	// Each flaw's tests, the assertion each must fail at and the value it must observe
	// there, are its claims in the mutation matrix (suites.MutantCatches), those of the
	// tests its focus runs, checked as the matrix checks them (matrix.Claim.Match).
	cases := []struct {
		flaw  peerproxy.Flaw
		focus string // the tests run; the identity tests when empty
		three bool   // a third server, of the newer version: two peers serve what the first lacks
	}{
		// Every endpoint of this target is the flawed reference in front of its apiserver,
		// but the identity flaws bend only what a reference forwards to a peer, so a test's
		// first check "directly at the peer" passes and its claim is the proxied assertion.
		// The peer authorizes the proxy, an admin: the ungranted user and anonymous get in,
		// the audit log names the proxy, and an ungranted user may impersonate an admin.
		// make test runs these three, side by side, each on its claims.
		{peerproxy.FlawForwardAsItself, "", false},
		{peerproxy.FlawDropImpersonation, `\[MVP-042`, false},
		{peerproxy.FlawTrustClientIdentity, `\[MVP-044`, false},
		{peerproxy.FlawBufferResponses, `\[MVP-012`, false},
		{peerproxy.FlawHedgeReads, `\[MVP-014`, true},
		{peerproxy.FlawLocalLegacyDiscovery, `\[DISC-005`, false},
		{peerproxy.FlawForgetUnreachablePeer, `\[RACE-002`, false},
		{peerproxy.FlawProxyCustomResources, `\[MVP-05|\[DISC-00[67]`, false},
		{peerproxy.FlawIgnoreMarker, `\[MVP-03[01]`, false},
		{peerproxy.FlawUnavailableAsNotFound, `\[MVP-022`, false},
		{peerproxy.FlawMergeNopeer, `\[DISC-002`, false},
		{peerproxy.FlawForwardAsAnonymous, `\[MVP-041`, false},
		{peerproxy.FlawRejectedTokenAnonymous, `\[MVP-048`, false},
		{peerproxy.FlawStalePeerDiscovery, `\[SOAK-001`, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.flaw), func(t *testing.T) {
			if identity := slices.Contains(identityFlaws, tc.flaw); identity {
				t.Parallel() // three clusters that mostly wait on their apiservers
			} else if !integration.Soak() {
				t.Skip("the full table runs in make soak, and every flaw in the mutation matrix (make mutation, the nightly); make test keeps the identity flaws")
			}
			focus := cmp.Or(tc.focus, `\[MVP-04`)
			failed := claimsIn("peerproxy/"+string(tc.flaw), focus)
			if len(failed) == 0 {
				t.Fatalf("the flaw claims no test its focus %s runs (suites.MutantCatches)", focus)
			}
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFlawedReferenceRun$", "-test.count=1", "-test.timeout=15m")
			cmd.Env = append(os.Environ(), flawEnv+"="+string(tc.flaw), flawReportEnv+"="+dir, flawFocusEnv+"="+focus)
			if tc.three {
				cmd.Env = append(cmd.Env, flawThreeEnv+"=1")
			}
			out, _ := cmd.CombinedOutput() // the child fails: its tests are meant to
			b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
			if err != nil {
				t.Fatalf("the flawed run wrote no report (%v):\n%s", err, tail(out))
			}
			var rep report.Conformance
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			for _, missed := range matrix.MissedClaims(rep, failed) {
				t.Errorf("against the reference with flaw %s: %s", tc.flaw, missed)
			}
			for _, r := range rep.Tests {
				if r.Result == report.Failed {
					t.Logf("%s failed, as a flawed reference may make it: %.300s", r.ID, r.Failure)
				}
			}
		})
	}
}

// identityFlaws are the flaws that bend who a proxied request is: make test runs them all.
var identityFlaws = []peerproxy.Flaw{peerproxy.FlawForwardAsItself, peerproxy.FlawDropImpersonation, peerproxy.FlawTrustClientIdentity}

// claimsIn are the mutant's claims on the tests whose "[ID]" the focus matches.
func claimsIn(mutant, focus string) map[string]matrix.Claim {
	out, re := map[string]matrix.Claim{}, regexp.MustCompile(focus)
	for id, claim := range suites.MutantCatches[mutant] {
		if re.MatchString("[" + id + "]") {
			out[id] = claim
		}
	}
	return out
}

// TestFlawedReferenceRun is one flawed run, started by TestFlawedReferenceFailsIdentityTests.
func TestFlawedReferenceRun(t *testing.T) {
	flaw := os.Getenv(flawEnv)
	if flaw == "" {
		t.Skip("a child of TestFlawedReferenceFailsIdentityTests, which runs it with " + flawEnv + " set")
	}
	integration.Require(t)
	servers := localtest.Skewed()
	if os.Getenv(flawThreeEnv) != "" {
		servers = append(servers, localtest.Newer())
	}
	c := localtest.Start(t, local.Config{Name: "flawed", Servers: localtest.WithoutPeerProxy(servers...)})
	target, _ := localtest.Reference(t, c, peerproxy.Flaw(flaw))
	dir := os.Getenv(flawReportEnv)
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, slices.Concat(mvp.Tests, discovery.Tests, races.Tests, soak.Tests),
		framework.RunOptions{Focus: os.Getenv(flawFocusEnv), ReportDir: dir, Seed: 1})
	if _, err := report.Write(dir, rep); err != nil {
		t.Fatal(err)
	}
}

// tail is the end of a child's output, enough to see why it failed.
func tail(out []byte) string {
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	return string(out)
}
