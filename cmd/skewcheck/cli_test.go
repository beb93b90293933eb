package main

import (
	"encoding/json"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/internal/reexec"
)

// These tests run the real CLI binary, as users and CI do: exit codes, messages and what is
// left behind are the product here.

var cli string

func TestMain(m *testing.M) {
	// The in-process runs of the reference dataplane (mutation_test.go) re-execute this
	// test binary on the node, and TestKindClusterAsItRuns makes its kind cluster in this
	// process, whose docker commands may go through the shim: this binary, started as docker.
	reexec.RunIfCalled()
	// Three of these tests at a time, not go test's default of one per core (two here),
	// unless -parallel says otherwise: they mostly wait (kind nodes booting, faults held,
	// images loading), and this package is make test's longest, finishing alone while the
	// cores idle. make test cannot raise -parallel for it: ginkgo's packages refuse the flag.
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", "3")
	}
	dir, err := os.MkdirTemp("", "skewcheck-cli-")
	if err != nil {
		panic(err)
	}
	cli = filepath.Join(dir, "skewcheck")
	if out, err := exec.Command("go", "build", "-o", cli, ".").CombinedOutput(); err != nil {
		panic("building the CLI: " + string(out))
	}
	code := m.Run()
	removeBuiltImages()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the CLI with its own state directory and returns combined output and exit code.
func run(t *testing.T, state string, args ...string) (string, int) {
	t.Helper()
	return runFrom(t, "", state, args...)
}

// runBeside starts the CLI as run does and returns at once: the returned function waits
// for it and gives its output and exit code, for a run made beside another.
func runBeside(t *testing.T, state string, args ...string) func() (string, int) {
	t.Helper()
	var out string
	var code int
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, code = run(t, state, args...)
	}()
	return func() (string, int) {
		<-done
		return out, code
	}
}

// runFrom is run with the CLI's working directory set to dir ("" for this one's).
func runFrom(t *testing.T, dir, state string, args ...string) (string, int) {
	t.Helper()
	out, ps := runCLI(t, dir, state, args...)
	return out, ps.ExitCode()
}

// runCLI runs the CLI to its end and returns its output and how it ended (runMeasured
// reads its peak memory there).
func runCLI(t *testing.T, dir, state string, args ...string) (string, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state)
	out, err := cmd.CombinedOutput()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState
}

// assertNothingLeft fails when a process still mentions dir (every apiserver's flags name
// its cluster directory) or when the named cluster's directory remains.
func assertNothingLeft(t *testing.T, dir string) {
	t.Helper()
	out, _ := exec.Command("pgrep", "-af", dir).Output()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("processes left running:\n%s", s)
	}
}

// TestUnknownVersion: a version no release or module has fails clearly, with the local and
// the kind provider, and leaves no cluster directory. It runs the binary: the version is
// resolved in the supervisor cluster create starts, the CLI re-executed.
func TestUnknownVersion(t *testing.T) {
	state := t.TempDir()
	for name, args := range map[string][]string{
		"local": {"cluster", "create", "--name", "badver", "--versions", "v1.99.0"},
		"kind":  {"cluster", "create", "--provider", "kind", "--name", "badver", "--versions", "v1.99.0"},
	} {
		t.Run(name, func(t *testing.T) {
			out, code := run(t, state, args...)
			if code == 0 || !strings.Contains(out, "no Kubernetes v1.99.0") {
				t.Errorf("want a non-zero exit and %q; exit %d:\n%s", "no Kubernetes v1.99.0", code, out)
			}
		})
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("failed commands left cluster directories: %v", entries)
	}
}

func TestBusyPortAndTakenName(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	state := t.TempDir()
	// The versions named, not the CLI's default: the skew checked below is 1.35's and 1.36's.
	oldV, newV := integration.Versions()
	versions := oldV + "," + newV
	l, err := net.Listen("tcp", "0.0.0.0:16443")
	if err != nil {
		t.Fatal(err)
	}
	out, code := run(t, state, "cluster", "create", "--name", "busy", "--port", "16443", "--versions", versions)
	l.Close()
	if code == 0 || !strings.Contains(out, "port 16443") || !strings.Contains(out, "in use") {
		t.Errorf("want a clear busy-port error; exit %d:\n%s", code, out)
	}
	assertNothingLeft(t, filepath.Join(state, "busy"))

	out, code = run(t, state, "cluster", "create", "--name", "taken", "--versions", versions)
	if code != 0 {
		t.Fatalf("create: exit %d:\n%s", code, out)
	}
	t.Cleanup(func() { run(t, state, "cluster", "delete", "--name", "taken") })
	out, code = run(t, state, "cluster", "create", "--name", "taken", "--versions", versions)
	if code == 0 || !strings.Contains(out, "already exists") {
		t.Errorf("want a clear taken-name error; exit %d:\n%s", code, out)
	}
	if out, code = run(t, state, "cluster", "skew", "--name", "taken"); code != 0 || !strings.Contains(out, "mutatingadmissionpolicies") {
		t.Errorf("cluster skew should list the resources only 1.36 serves; exit %d:\n%s", code, out)
	}
	if out, code = run(t, state, "cluster", "delete", "--name", "taken"); code != 0 {
		t.Errorf("delete: exit %d:\n%s", code, out)
	}
	assertNothingLeft(t, filepath.Join(state, "taken"))
	if _, err := os.Stat(filepath.Join(state, "taken")); !os.IsNotExist(err) {
		t.Errorf("delete left the cluster directory: %v", err)
	}
}

func TestNoPrivilege(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	state := t.TempDir()
	os.Chmod(state, 0o777)
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli, "cluster", "create", "--name", "np")
	cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state, "HOME="+state)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs root or CAP_SYS_ADMIN") {
		t.Errorf("want a clear privilege error; err %v:\n%s", err, out)
	}
	assertNothingLeft(t, filepath.Join(state, "np"))
}

// TestConformanceFailsWhenTheGateIsOff shows the suites can fail: against a cluster whose
// first server runs without the mixed version proxy, the proxy tests fail with reasons,
// the exit code is non-zero, and evidence is collected.
func TestConformanceFailsWhenTheGateIsOff(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "conformance", "--versions", "v1.35.4,v1.36.3", "--no-peer-proxy", "1",
		"--server-flag", "1=--runtime-config=batch/v1=false", "--report-dir", dir, "--timeout-converge", "15s")
	if code == 0 {
		t.Fatalf("conformance passed against a target with the gate off:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, strings.Join(lines[max(0, len(lines)-30):], "\n"))
	}
	if err := report.Validate(b); err != nil {
		t.Errorf("report does not validate: %v", err)
	}
	var rep report.Conformance
	json.Unmarshal(b, &rep)
	results := map[string]report.Test{}
	for _, tc := range rep.Tests {
		results[tc.ID] = tc
	}
	for _, id := range []string{"MVP-010", "MVP-011", "MVP-012", "MVP-013", "MVP-022", "MVP-045", "DISC-001"} {
		tc := results[id]
		if tc.Result != report.Failed || tc.Failure == "" {
			t.Errorf("%s should fail with a reason when the gate is off: %s %q", id, tc.Result, tc.Failure)
		}
	}
	if len(results["MVP-010"].Artifacts) == 0 {
		t.Errorf("MVP-010 failed without evidence")
	}
	for _, id := range []string{"MVP-020", "MVP-021", "MVP-031"} {
		if results[id].Result != report.Passed {
			t.Errorf("%s does not depend on the proxy and should still pass: %s", id, results[id].Failure)
		}
	}
	if !strings.Contains(out, " passed, ") || !strings.Contains(out, "not conformant") {
		t.Errorf("output lacks the closing line or verdict")
	}
	// The one cause, before the twenty symptoms: the gate is off on apiserver-1.
	if p := rep.ProxyState; p == nil || !slices.Equal(p.Inert, []string{"apiserver-1"}) || !strings.Contains(out, "ONE CAUSE: ") {
		t.Errorf("the report's proxy state %+v, want apiserver-1 alone inert, and the summary to lead with it", p)
	}
}

// TestKubeadmDefaultsLeaveTheProxyInert: servers started as kubeadm starts them (the gate
// at its release's default, no --peer-ca-file) build no proxy. The diagnosis says so for
// each, in its own words (1.35: the gate is off; 1.36: on, but no peer CA), within its
// time bound, and the summary leads with that one cause and its fix; the proxy tests fail.
func TestKubeadmDefaultsLeaveTheProxyInert(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "conformance", "--versions", oldV+","+newV, "--kubeadm-peer-proxy", "1,2",
		"--server-flag", "1=--runtime-config=batch/v1=false", "--focus", "MVP-010", "--report-dir", dir, "--timeout-converge", "15s")
	if code != 1 {
		t.Errorf("exit %d, want 1 (MVP-010 fails where the proxy is inert):\n%s", code, tail(out, 40))
	}
	rep := readReport(t, dir, out)
	p := rep.ProxyState
	if p == nil {
		t.Fatalf("the report carries no proxy state:\n%s", tail(out, 40))
	}
	if !slices.Equal(p.Inert, []string{"apiserver-1", "apiserver-2"}) || !strings.Contains(p.Fix, "--peer-ca-file") {
		t.Errorf("inert %v, fix %q: want both servers inert and a fix naming --peer-ca-file", p.Inert, p.Fix)
	}
	for _, s := range p.Servers {
		if s.PeerProxy.State != report.PeerProxyNotBuilt || s.Discovery.State == report.DiscoveryMerged {
			t.Errorf("%s: proxy %s, discovery %s: want not built and not merged", s.Name, s.PeerProxy.State, s.Discovery.State)
		}
	}
	if i := strings.Index(out, "ONE CAUSE: "); i < 0 || !strings.Contains(out[i:], "no --peer-ca-file") || !strings.Contains(out[i:], "fix: ") {
		t.Errorf("the summary does not lead with the cause and its fix:\n%s", tail(out, 40))
	}
}

// TestInterruptLeavesNothing sends SIGINT to conformance runs once their tests are running:
// no process, cluster directory, address slot, network namespace or dataplane may remain.
func TestInterruptLeavesNothing(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	_, newV := integration.Versions()
	for _, tc := range []struct {
		name, marker string
		args         []string
	}{
		{"mvp", "[MVP-0", []string{"--versions", "v1.35.4," + newV}},
		{"dataplane", "[IPM-10", []string{"--versions", newV, "--profiles", "ipmode", "--dataplane", "reference"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			interruptWhen(t, tmp, tc.marker, append([]string{"conformance", "--report-dir", filepath.Join(tmp, "report"), "-v=1"}, tc.args...))
			assertNothingLeft(t, tmp)
			assertNoDataplaneLeft(t)
			entries, _ := filepath.Glob(filepath.Join(tmp, "skewcheck-conformance-*"))
			if len(entries) > 0 {
				t.Errorf("the interrupted run left cluster directories: %v", entries)
			}
		})
	}
}

// interruptWhen runs the CLI until its output shows marker, sends SIGINT and waits for it.
func interruptWhen(t *testing.T, tmp, marker string, args []string) {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Env = cliEnv(t, "TMPDIR="+tmp, "SKEWCHECK_STATE_DIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 64<<10)
	var seen strings.Builder
	for !strings.Contains(seen.String(), marker) {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("the run ended before %q showed:\n%s", marker, seen.String())
		}
		seen.Write(buf[:n])
	}
	cmd.Process.Signal(os.Interrupt)
	go func() {
		for {
			if _, err := out.Read(buf); err != nil {
				return
			}
		}
	}()
	cmd.Wait()
}
