package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/suites"
)

// TestSidecarCommand certifies a proxy given as a command, the way a vendor would: the
// reference peer proxy, run as its own process through `skewcheck reference peerproxy`
// from the environment skewcheck gives each sidecar. Every mvp and discovery test runs
// (none needs what only skewcheck's own in-process reference could give) and passes, and
// no sidecar process outlives the run.
func TestSidecarCommand(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	runReferenceAsSidecar(t, "--versions", oldV+","+newV)
	if out, code := run(t, t.TempDir(), "conformance", "--sidecar-command", "true", "--reference", "peerproxy"); code == 0 || !strings.Contains(out, "cannot go with") {
		t.Errorf("--sidecar-command with --reference must be refused: exit %d\n%s", code, out)
	}
}

// referenceAsSidecar runs the reference peer proxy from the environment skewcheck gives a
// sidecar, as a vendor's command would (cli is built by TestMain).
func referenceAsSidecar() string {
	return "exec " + cli + ` reference peerproxy --id "$SKEWCHECK_ID" --listen "$SKEWCHECK_LISTEN"` +
		` --apiserver "$SKEWCHECK_APISERVER" --apiserver-ca "$SKEWCHECK_APISERVER_CA" --advertise-url "$SKEWCHECK_ADVERTISE_URL"` +
		` --tls-cert "$SKEWCHECK_SERVING_CERT" --tls-key "$SKEWCHECK_SERVING_KEY" --client-ca "$SKEWCHECK_CLIENT_CA"` +
		` --front-proxy-cert "$SKEWCHECK_FRONT_PROXY_CERT" --front-proxy-key "$SKEWCHECK_FRONT_PROXY_KEY"` +
		` --control-cert "$SKEWCHECK_CONTROL_CERT" --control-key "$SKEWCHECK_CONTROL_KEY"`
}

// runReferenceAsSidecar runs the default profiles (mvp, discovery) against the reference
// as a sidecar in front of the cluster args make (with the default skew, both ways), and
// checks that every test ran and passed, that each sidecar's log is in the report
// directory, and that no sidecar outlives the run.
func runReferenceAsSidecar(t *testing.T, args ...string) {
	t.Helper()
	rep, code, dir, out := runWithReferenceSidecar(t, args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\nfailed: %s", code, tail(out, 40), failedTests(dir))
	}
	want, _ := framework.Select(suites.All(), suites.DefaultProfiles)
	if len(rep.Tests) != len(want) {
		t.Errorf("report: %d tests, want %d", len(rep.Tests), len(want))
	}
}

// expectSidecarLogs fails unless the report directory dir holds each sidecar's log, with
// the reference peer proxy's output in it.
func expectSidecarLogs(t *testing.T, dir string) {
	t.Helper()
	for _, n := range []string{"sidecar-apiserver-1.log", "sidecar-apiserver-2.log"} {
		if log, _ := os.ReadFile(filepath.Join(dir, "sidecar", n)); !strings.Contains(string(log), "reference peer proxy") {
			t.Errorf("%s in the report directory lacks the sidecar's output:\n%s", n, tail(string(log), 10))
		}
	}
}

// runWithReferenceSidecar runs conformance with args against the reference as a sidecar,
// checks that each sidecar's log is in the report directory and that no sidecar outlives
// the run, and returns the report, the exit code, the report directory and the output.
func runWithReferenceSidecar(t *testing.T, args ...string) (report.Conformance, int, string, string) {
	t.Helper()
	dir := t.TempDir()
	args = append([]string{"conformance",
		"--sidecar-name", "reference-as-sidecar", "--sidecar-command", referenceAsSidecar(), "--report-dir", dir}, args...)
	out, code := run(t, t.TempDir(), args...)
	for _, p := range markedProcesses(t) {
		t.Errorf("a process of the run (a sidecar?) is still running: %s", p)
	}
	expectSidecarLogs(t, dir)
	rep := readReport(t, dir, out)
	if rep.Target != "sidecar:reference-as-sidecar" || !strings.HasPrefix(rep.Endpoints[0].Name, "sidecar-") {
		t.Errorf("report: target %q, endpoints %+v", rep.Target, rep.Endpoints)
	}
	return rep, code, dir, out
}
