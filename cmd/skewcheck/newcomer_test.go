package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestNewcomerFirstRun runs `skewcheck conformance` as a new user would, with no flag
// but the versions: against healthy upstream it must exit 0, every test passing, having
// said in one line what skew it chose.
func TestNewcomerFirstRun(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	dir := t.TempDir()
	// The report directory is the default's, in a scratch working directory.
	out, code := runIn(t, dir, "conformance", "--versions", oldV+","+newV)
	rep := readReport(t, filepath.Join(dir, "_reports"), out)
	validReport(t, filepath.Join(dir, "_reports"))
	if code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, tail(out, 50))
	}
	if !strings.Contains(out, "no --server-flag: batch/v1 is off on apiserver-1 and autoscaling/v2 on apiserver-2") {
		t.Errorf("the default skew is not said:\n%s", tail(out, 50))
	}
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed {
			t.Errorf("%s %s: %s%s", tc.ID, tc.Result, tc.Failure, tc.SkipReason)
		}
	}
	if !rep.Success() || strings.Contains(out, "NOT TESTED") {
		t.Errorf("profiles %+v", rep.Profiles)
	}
	// Before any test, the proxy's state: built and proxying at both servers, discovery
	// merged, so the report names no cause.
	expectProxyActive(t, rep, out)
}

// expectProxyActive fails unless the report says the Mixed Version Proxy is active at
// every server (a request only a peer serves proxied, merged discovery) and the output
// leads with no cause.
func expectProxyActive(t *testing.T, rep report.Conformance, out string) {
	t.Helper()
	p := rep.ProxyState
	if p == nil {
		t.Fatalf("the report carries no proxy state")
	}
	if len(p.Inert) > 0 || strings.Contains(out, "ONE CAUSE:") {
		t.Errorf("the proxy is said inert on %v: %s", p.Inert, p.Verdict)
	}
	for _, s := range p.Servers {
		if s.Proxying.State != report.ProxyActive || s.Discovery.State != report.DiscoveryMerged || s.PeerProxy.State != report.PeerProxyBuilt {
			t.Errorf("%s: proxy %s, proxying %s (%s), discovery %s (%s), want built, active and merged",
				s.Name, s.PeerProxy.State, s.Proxying.State, s.Proxying.Evidence, s.Discovery.State, s.Discovery.Evidence)
		}
	}
}

// TestNewcomerIpmode: --profiles ipmode with no --dataplane tests the reference dataplane
// instead of skipping every dataplane test.
func TestNewcomerIpmode(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	_, newV := integration.Versions()
	dir := t.TempDir()
	out, code := runIn(t, dir, "conformance", "--versions", newV, "--profiles", "ipmode")
	defer assertNoDataplaneLeft(t)
	rep := readReport(t, filepath.Join(dir, "_reports"), out)
	validReport(t, filepath.Join(dir, "_reports"))
	if code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, tail(out, 40))
	}
	if !strings.Contains(out, "--profiles ipmode without --dataplane: testing skewcheck's reference dataplane") || rep.Dataplane != "reference" {
		t.Errorf("the default dataplane is not said or not used (report names %q):\n%s", rep.Dataplane, tail(out, 40))
	}
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed {
			t.Errorf("%s %s: %s%s", tc.ID, tc.Result, tc.Failure, tc.SkipReason)
		}
	}
}

// runIn runs the CLI in dir, with its own state directory there, and returns combined
// output and exit code; the report goes to the default --report-dir, dir/_reports.
func runIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	return runFrom(t, dir, filepath.Join(dir, "state"), args...)
}

func validReport(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err == nil {
		err = report.Validate(b)
	}
	if err != nil {
		t.Errorf("report: %v", err)
	}
}
