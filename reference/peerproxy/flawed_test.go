package peerproxy_test

import (
	"cmp"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites/discovery"
	"github.com/skewcheck/skewcheck/suites/mvp"
	"github.com/skewcheck/skewcheck/suites/races"
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
// and a rejected token (MVP-048) can fail: the reference made wrong in one
// way at a time fails the tests about that way, each of which must have run and failed
// saying why. Each flawed run is a child process (TestFlawedReferenceRun) with its own
// cluster.
func TestFlawedReferenceFailsIdentityTests(t *testing.T) {
	integration.Require(t)
	cases := []struct {
		flaw   peerproxy.Flaw
		failed map[string]string // each must fail, its failure saying this
		focus  string            // the tests run; the identity tests when empty
		three  bool              // a third server, of the newer version: two peers serve what the first lacks
	}{
		// Every endpoint of this target is the flawed reference in front of its apiserver,
		// so a test's first check "directly at the peer" goes through the peer's own flawed
		// proxy, and is often the one that fails.
		//
		// The peer authorizes the proxy, an admin: the ungranted user and anonymous get in,
		// the audit log names the proxy, and an ungranted user may impersonate an admin.
		{peerproxy.FlawForwardAsItself, map[string]string{
			"MVP-040": "the unprivileged user must be denied",
			"MVP-043": "user at the peer",
			"MVP-044": "identity headers sent by the client changed who it is at",
			"MVP-045": "a websocket watch as the ungranted user",
			"MVP-046": "anonymous directly at",
			"MVP-047": "Impersonate headers from",
			"MVP-049": "as a user RBAC grants nothing",
		}, "", false},
		// The admin impersonating the user stays the admin.
		{peerproxy.FlawDropImpersonation, map[string]string{"MVP-042": "the admin impersonating"}, "", false},
		// X-Remote-Group: system:masters from the client makes it an admin.
		{peerproxy.FlawTrustClientIdentity, map[string]string{"MVP-044": "identity headers sent by the client changed who it is at"}, "", false},
		// A watch's events come only when the watch ends: its answer too, so the object
		// written once the watch answered is never in it.
		{peerproxy.FlawBufferResponses, map[string]string{"MVP-012": "ended without the peer's ADDED event"}, `\[MVP-012`, false},
		// A read answered by one peer is sent to the other as well.
		{peerproxy.FlawHedgeReads, map[string]string{"MVP-014": "should reach exactly one other server, once"}, `\[MVP-014`, true},
		// Legacy discovery documents left to each apiserver, as upstream leaves them: the
		// first server's /apis/batch/v1 is 404 when its /apis lists batch/v1, and batch/v1
		// is missing from its list when the server without it started last (it prunes the
		// shared APIServices to its own); either way jobs are not listed, and a reference
		// gets no deviation for it.
		{peerproxy.FlawLocalLegacyDiscovery, map[string]string{"DISC-005": "GVRs some server serves not listed"}, `\[DISC-005`, false},
		// A crashed peer is forgotten after 5 s while its lease stands: 503, then 404s
		// for the rest of the hold, the peer still down.
		{peerproxy.FlawForgetUnreachablePeer, map[string]string{"RACE-002": "404s and 0 200s while the peer was down"}, `\[RACE-002`, false},
		// A CRD or an aggregated API made after start is taken for the peer's whose
		// discovery lists it: its requests reach that peer, 503 once it is killed, and
		// merged discovery lists it before the server's own view does.
		{peerproxy.FlawProxyCustomResources, map[string]string{"MVP-050": "was proxied to a peer",
			"MVP-051": "serves it itself", "DISC-006": "an extension listed as a peer's",
			"MVP-052": "was proxied to a peer", "MVP-053": "was proxied to a peer", "DISC-007": "an extension listed as a peer's"},
			`\[MVP-05|\[DISC-00[67]`, false},
		// A request a peer already forwarded is forwarded again, and a group-version
		// document asked as a peer asks is answered for the control plane.
		{peerproxy.FlawIgnoreMarker, map[string]string{"MVP-030": "forwarded a request already marked as proxied",
			"MVP-031": "asked as already proxied"}, `\[MVP-03[01]`, false},
		// A crashed peer's resources get 404, not 503.
		{peerproxy.FlawUnavailableAsNotFound, map[string]string{"MVP-022": "should answer 503"}, `\[MVP-022`, false},
		// The nopeer view lists the peers' resources too: caught since what each server
		// serves is read from its apiserver, not through the proxy.
		{peerproxy.FlawMergeNopeer, map[string]string{"DISC-002": "nopeer /apis lists"}, `\[DISC-002`, false},
		// Users reach the peers as anonymous: a read RBAC grants the user is denied there.
		{peerproxy.FlawForwardAsAnonymous, map[string]string{"MVP-041": "get as the allowed user through"}, `\[MVP-041`, false},
		// A rejected token is served as anonymous (403) instead of answered 401.
		{peerproxy.FlawRejectedTokenAnonymous, map[string]string{"MVP-048": "must be answered as"}, `\[MVP-048`, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.flaw), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFlawedReferenceRun$", "-test.count=1", "-test.timeout=10m")
			focus := cmp.Or(tc.focus, `\[MVP-04`)
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
			for _, missed := range report.MissedFailures(rep, tc.failed) {
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
	rep := framework.Run(t, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts().WithHold(integration.Hold())}, slices.Concat(mvp.Tests, discovery.Tests, races.Tests),
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
