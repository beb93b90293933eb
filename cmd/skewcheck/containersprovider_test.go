package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/suites"
)

// TestContainersProvider runs mvp and discovery against upstream on --provider containers:
// etcd and two skewed kube-apiservers each in a container of their own on a Docker
// network. Every test passes, as on the local provider, and no container or network
// outlives the run. Bad input fails clearly and leaves nothing: an etcd binary that is not
// static (a FROM scratch image cannot run it), an apiserver that exits at once (its log's
// end in the error).
func TestContainersProvider(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	oldV, newV := integration.Versions()
	before, beforeNets := skewcheckContainers(t, rt), skewcheckNetworks(t, rt)
	leftNothing := func(what string) {
		t.Helper()
		expectNoNewContainers(t, rt, before)
		for _, n := range skewcheckNetworks(t, rt) {
			if !slices.Contains(beforeNets, n) {
				t.Errorf("%s: network %s left behind", what, n)
			}
		}
	}

	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "conformance", "--provider", "containers", "--static-binary", staticCLI(t),
		"--versions", oldV+","+newV, "--server-flag", "1=--runtime-config=batch/v1=false", "--server-flag", "2=--runtime-config=autoscaling/v2=false",
		"--profiles", "mvp,discovery", "--report-dir", dir)
	leftNothing("a passing run")
	rep := readReport(t, dir, out)
	want, _ := framework.Select(suites.All(), []string{"mvp", "discovery"})
	if code != 0 || rep.Target != "containers" || len(rep.Tests) != len(want) {
		t.Errorf("exit %d, target %q, %d tests; want 0, containers, %d:\n%s", code, rep.Target, len(rep.Tests), len(want), tail(out, 40))
	}
	for _, r := range rep.Tests {
		if r.Result != report.Passed {
			t.Errorf("%s: %s %s%s", r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}

	out, code = run(t, t.TempDir(), "conformance", "--provider", "containers", "--static-binary", "/bin/sleep", "--versions", oldV+","+oldV, "--report-dir", t.TempDir())
	leftNothing("a dynamic --static-binary")
	if code == 0 || !strings.Contains(out, "dynamically linked") {
		t.Errorf("a dynamic etcd binary: exit %d, want a refusal saying it is dynamically linked:\n%s", code, tail(out, 20))
	}
	out, code = run(t, t.TempDir(), "conformance", "--provider", "containers", "--static-binary", staticCLI(t), "--versions", oldV+","+oldV,
		"--server-flag", "1=--no-such-flag", "--report-dir", t.TempDir())
	leftNothing("an apiserver that exits at once")
	if code == 0 || !strings.Contains(out, "exited before it was ready") || !strings.Contains(out, "unknown flag: --no-such-flag") {
		t.Errorf("an apiserver that exits at once: exit %d, want the end of its log:\n%s", code, tail(out, 20))
	}
}

// skewcheckNetworks lists the names of the Docker networks skewcheck made whose owner is
// gone (see skewcheckContainers).
func skewcheckNetworks(t *testing.T, rt *containers.Runtime) []string {
	t.Helper()
	list, err := rt.Provider().Client().NetworkList(context.Background(), client.NetworkListOptions{
		Filters: make(client.Filters).Add("label", containers.OwnerLabel)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range list.Items {
		if ownerGone(n.Labels) {
			names = append(names, n.Name)
		}
	}
	return names
}

// TestContainersChaos runs `skewcheck chaos --provider containers` against upstream with a
// crash (SIGKILL to the container), a partition (the server's container disconnected from
// the network), and the nftables faults in the pods' network namespaces: an exact
// partition of the two servers gives 503 (make soak adds a one-way partition of the peer
// path, 503 too, and packet loss, which gives none); all recover, with no spurious 404 or lost write, and no container,
// network or nftables table outlives the run.
func TestContainersChaos(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	integration.RequireNft(t)
	oldV, newV := integration.Versions()
	before, beforeNets := skewcheckContainers(t, rt), skewcheckNetworks(t, rt)
	dir := t.TempDir()
	// One fault per way the provider makes one: the container killed, disconnected from
	// its network, and nftables rules in the servers' network namespaces. make soak adds
	// the others of those rules' kind: loss and the one-way partition.
	faultNames := []string{"crash", "partition", "partition-pair"}
	if integration.Soak() {
		faultNames = append(faultNames, "loss", "partition-one-way")
	}
	out, code := run(t, t.TempDir(), "chaos", "--provider", "containers", "--static-binary", staticCLI(t), "--versions", oldV+","+newV,
		"--fault", strings.Join(faultNames, ","), "--targets", "upstream", "--for", "5s", "--report-dir", dir)
	expectNoNewContainers(t, rt, before)
	tables, _ := exec.Command("nft", "list", "tables", "inet").Output()
	for _, f := range strings.Fields(string(tables)) {
		// The run has exited: a table named by a pid that is gone is one it left.
		if process.OwnerGone(f, "skewcheck_", "_") {
			t.Errorf("the run left its nftables table %s", f)
		}
	}
	for _, n := range skewcheckNetworks(t, rt) {
		if !slices.Contains(beforeNets, n) {
			t.Errorf("network %s left behind", n)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, tail(out, 30))
	}
	b, err := os.ReadFile(filepath.Join(dir, "chaos-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct{ Outcomes []chaos.Outcome }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Outcomes) != len(faultNames) {
		t.Fatalf("%d outcomes, want %s:\n%s", len(rep.Outcomes), strings.Join(faultNames, ", "), b)
	}
	for _, o := range rep.Outcomes {
		want503 := o.Fault != "loss" // 30 % loss slows a few requests; TCP retransmits the rest
		if o.Skipped != "" || (o.TimeTo503 >= 0) != want503 || o.Spurious404 > 0 || o.LostWrites > 0 || o.TimeToRecover < 0 {
			t.Errorf("%s: skipped %q, time to 503 %.2f s, %d spurious 404s, %d lost writes, recovered after %.2f s: want a 503 (%v), no 404, no lost write, a recovery",
				o.Fault, o.Skipped, o.TimeTo503, o.Spurious404, o.LostWrites, o.TimeToRecover, want503)
		}
		if o.Fault == "partition" && !strings.Contains(o.Description, "network disconnect") {
			t.Errorf("partition on containers is %q, want the network disconnect", o.Description)
		}
		if o.Fault == "partition-pair" && !strings.Contains(o.Description, "network namespace") {
			t.Errorf("partition-pair on containers is %q, want rules in the servers' network namespaces", o.Description)
		}
	}
}

// TestContainersInterrupted: Ctrl-C in the middle of a run on the containers provider, and
// Ctrl-C while the run deletes its cluster, remove every container and the network before
// the CLI exits (containers, unlike the local provider's processes, do not die with it).
// A run interrupted in its tests fails; one interrupted while it deletes its cluster keeps
// the verdict it already printed.
func TestContainersInterrupted(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	rt := requireDocker(t)
	oldV, newV := integration.Versions()
	t.Run("while the suites run", func(t *testing.T) {
		if code := interruptAfter(t, rt, "converged in", oldV+","+newV); code == 0 {
			t.Errorf("a run interrupted in its tests exited 0")
		}
	})
	// One quick test, so the run reaches its deletion soon.
	t.Run("while the cluster is deleted", func(t *testing.T) {
		if code := interruptAfter(t, rt, "deleting the cluster", oldV+","+newV, "--focus", "MVP-020"); code != 0 {
			t.Errorf("a run interrupted after its verdict (MVP-020 passed) exited %d, want 0", code)
		}
	})
}

// interruptAfter starts a conformance run on containers, sends SIGINT once its output says
// mark, and returns the run's exit code once it has exited and left nothing.
func interruptAfter(t *testing.T, rt *containers.Runtime, mark, versions string, args ...string) int {
	before, beforeNets := skewcheckContainers(t, rt), skewcheckNetworks(t, rt)
	var out syncBuffer
	cmd := exec.Command(cli, append([]string{"conformance", "--provider", "containers", "--static-binary", staticCLI(t), "--versions", versions,
		"--profiles", "mvp", "--report-dir", t.TempDir()}, args...)...)
	cmd.Env = cliEnv(t)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), mark) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(out.String(), mark) {
		// Interrupting a run that ended, or never got there, would prove nothing.
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the run never said %q, where it was to be interrupted:\n%s", mark, tail(out.String(), 20))
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the CLI did not exit within a minute of Ctrl-C:\n%s", tail(out.String(), 20))
	}
	expectNoNewContainers(t, rt, before)
	for _, n := range skewcheckNetworks(t, rt) {
		if !slices.Contains(beforeNets, n) {
			t.Errorf("network %s left behind", n)
		}
	}
	if t.Failed() {
		t.Logf("the interrupted run's output ends with:\n%s", tail(out.String(), 20))
	}
	return cmd.ProcessState.ExitCode()
}

// syncBuffer is an output buffer the test reads while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
