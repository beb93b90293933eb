package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestDataplanes runs the ipmode profile through the CLI against each dataplane, as `make
// conformance` does: kube-proxy (iptables; nftables too in make soak) and the reference
// pass, with IPM-107's figures; the reference with ipMode handling switched off fails exactly the tests about
// Proxy, with the reason; a mode this kernel lacks skips with the reason; a dataplane that
// dies is an error. After each run, no namespace or dataplane process may remain.
func TestDataplanes(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	_, ipvsErr := os.Stat("/proc/net/ip_vs")
	cases := []dataplaneCase{
		{dataplane: "kube-proxy-iptables", pass: true},
		{dataplane: "reference", pass: true},
		{dataplane: "reference-ignoring-ipmode", failed: []string{"IPM-103", "IPM-105", "IPM-107"}},
		{dataplane: "kube-proxy-ipvs", pass: ipvsErr == nil, skipped: map[bool]string{true: "", false: "/proc/net/ip_vs is missing"}[ipvsErr == nil]},
		{dataplane: "exec", args: []string{"--dataplane-command", "echo this dataplane crashes; exit 3"}, errText: "exited before serving (exit status 3)"},
	}
	if integration.Soak() {
		// make test runs kube-proxy in nftables mode once, as suites' TestUpstreamIsConformant's
		// dataplane; the flag's path from the CLI is the other cases'.
		cases = append(cases, dataplaneCase{dataplane: "kube-proxy-nftables", pass: true})
	}
	for _, tc := range cases {
		t.Run(tc.dataplane, func(t *testing.T) { runDataplaneCase(t, tc) })
	}
}

// dataplaneCase is one run of the ipmode profile through the CLI, and what must come of it.
type dataplaneCase struct {
	dataplane string
	args      []string
	pass      bool
	failed    []string // IDs that must fail; every other test must pass
	skipped   string   // when set: every dataplane test skips with a reason containing it
	errText   string   // when set: the run ends in an error containing it, without a report
}

// runDataplaneCase runs the ipmode profile on one server of the newest version against
// tc's dataplane, and checks the report and that nothing is left.
func runDataplaneCase(t *testing.T, tc dataplaneCase) {
	_, newV := integration.Versions()
	dir := t.TempDir()
	args := append([]string{"conformance", "--versions", newV, "--profiles", "ipmode", "--dataplane", tc.dataplane,
		"--report-dir", dir, "--dataplane-sync-bound", "5s"}, tc.args...)
	out, code := run(t, t.TempDir(), args...)
	defer assertNoDataplaneLeft(t)
	if (code == 0) != tc.pass {
		t.Fatalf("exit code %d, want success %v:\n%s%s", code, tc.pass, tail(out, 40), failedTests(dir))
	}
	if tc.errText != "" {
		if !strings.Contains(out, tc.errText) {
			t.Errorf("want %q in the output:\n%s", tc.errText, tail(out, 20))
		}
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, tail(out, 30))
	}
	var rep report.Conformance
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Dataplane != tc.dataplane && tc.skipped == "" {
		t.Errorf("report names dataplane %q", rep.Dataplane)
	}
	mustFail := map[string]string{}
	for _, id := range tc.failed {
		mustFail[id] = "directly, without the load balancer"
	}
	for _, missed := range report.MissedFailures(rep, mustFail) {
		t.Errorf("%s (the request must have bypassed the load balancer)", missed)
	}
	for _, r := range rep.Tests {
		isDataplane := strings.HasPrefix(r.ID, "IPM-1")
		switch {
		case tc.skipped != "" && isDataplane:
			if r.Result != report.Skipped || !strings.Contains(r.SkipReason, tc.skipped) {
				t.Errorf("%s: %s %q, want skipped because %q", r.ID, r.Result, r.SkipReason, tc.skipped)
			}
		case slices.Contains(tc.failed, r.ID): // checked above
		case r.Result != report.Passed:
			t.Errorf("%s: %s %s%s", r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}
	if tc.pass {
		for _, id := range []string{"IPM-101", "IPM-105"} {
			if len(testByID(rep, id).Measurements) == 0 {
				t.Errorf("%s has no measurement of how long the change took", id)
			}
		}
		// What externalTrafficPolicy Local does behind a Proxy IP is measured, not asserted:
		// the figures must be there, whatever they are.
		ms := testByID(rep, "IPM-107").Measurements
		for _, name := range []string{"toNodeLocalEndpoint", "fromNodeAddress"} {
			if _, ok := ms[name]; !ok {
				t.Errorf("IPM-107 has no measurement %s (has %v)", name, ms)
			}
		}
		t.Logf("IPM-107 (externalTrafficPolicy Local, ipMode Proxy) on %s: %v", tc.dataplane, ms)
	}
}

// assertNoDataplaneLeft fails when a namespace or a process of t's CLI runs outlived them:
// kube-proxy, or the reference dataplane (the CLI binary itself), found by the mark they
// inherit (cliEnv), so another package's kube-proxy running beside this one is not taken
// for a leftover.
func assertNoDataplaneLeft(t *testing.T) {
	t.Helper()
	assertNoNamespaceLeft(t)
	for _, p := range markedProcesses(t) {
		t.Errorf("a process of the run is still running: %s", p)
	}
}

// assertNoNamespaceLeft fails when a network namespace outlived the run that made it.
func assertNoNamespaceLeft(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		if netns.Orphaned(e.Name()) {
			t.Errorf("network namespace %s left behind", e.Name())
		}
	}
}

// failedTests lists the failed tests of the report in dir with their reasons, which the
// tail of the CLI's output may have cut off; "" when there is no report or no failure.
func failedTests(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		return ""
	}
	var rep report.Conformance
	if json.Unmarshal(b, &rep) != nil {
		return ""
	}
	var out strings.Builder
	for _, tc := range rep.Tests {
		if tc.Result == report.Failed {
			fmt.Fprintf(&out, "\n%s failed: %s", tc.ID, tc.Failure)
		}
	}
	return out.String()
}

func testByID(rep report.Conformance, id string) report.Test {
	for _, r := range rep.Tests {
		if r.ID == id {
			return r
		}
	}
	return report.Test{}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
