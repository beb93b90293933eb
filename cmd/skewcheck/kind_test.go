package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestKindNoDockerEngine: --provider kind without a Docker engine fails saying so, and
// leaves no cluster directory (the flag errors before it are app's TestKindBadInput).
func TestKindNoDockerEngine(t *testing.T) {
	state := t.TempDir()
	cmd := exec.Command(cli, "cluster", "create", "--provider", "kind", "--name", "nodocker", "--versions", "v1.36.3")
	cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state, "DOCKER_HOST=unix:///nonexistent/docker.sock")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the Docker engine is not reachable") {
		t.Errorf("want a failure saying Docker is not reachable; err %v:\n%s", err, out)
	}
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("a failed command left cluster directories: %v", entries)
	}
}

// TestKindDataplanes runs the ipmode profile on a one-node kind cluster, the dataplane in
// the node's network namespace watching the node's own apiserver: the reference with
// ipMode handling switched off fails exactly the tests about Proxy, so the profile can
// fail on kind too, and passes the rest; kube-proxy and the reference shipped as an image
// (its container joins the node's) pass. Each run deletes its cluster and leaves no
// namespace and no dataplane process or container. make soak's: make test runs the flawed
// reference in TestKindFronts' cluster (kindDataplaneGuard), one kind cluster fewer, and
// kube-proxy and the image on the local provider (TestDataplanes, TestDataplaneImage).
func TestKindDataplanes(t *testing.T) {
	integration.Require(t)
	if !integration.Soak() {
		t.Skip("make soak's: make test runs the flawed reference dataplane on kind in TestKindFronts' cluster (kindDataplaneGuard)")
	}
	t.Parallel()
	requireKind(t)
	rt := requireDocker(t)
	cases := []dataplaneCase{
		{dataplane: "reference-ignoring-ipmode", failed: kindDataplaneGuard},
		{dataplane: "kube-proxy-nftables", pass: true},
		{dataplane: "image", args: []string{"--dataplane-image", buildReferenceImage(t, rt, "dataplane")}, pass: true},
	}
	for _, tc := range cases {
		tc.args = append(tc.args, "--provider", "kind")
		t.Run(tc.dataplane, func(t *testing.T) {
			before := skewcheckContainers(t, rt)
			runDataplaneCase(t, tc)
			expectNoNewContainers(t, rt, before)
			assertNoKindRunLeft(t)
		})
	}
}

// TestKindFronts: a vendor's sidecar stands in front of kind's apiservers as in front of
// local ones (clusters.FrontHost): the reference peer proxy, run from the sidecar's
// environment, in front of two skewed kind nodes whose own proxy is off (the gate false on
// each node), passes, and nothing of the run is left. make soak runs every mvp and
// discovery test; make test runs kindFrontsFocus, what only kind's fronts can break (every
// test through a sidecar is TestSidecarCommand's, on the local provider), and in the same
// run, on the same cluster, the ipmode profile with the reference dataplane that ignores
// ipMode (TestKindDataplanes' guard, which then needs no kind cluster of its own): it
// fails exactly kindDataplaneGuard, for the reason, and passes the rest.
func TestKindFronts(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	requireKind(t)
	rt := requireDocker(t)
	before := skewcheckContainers(t, rt)
	oldV, newV := integration.Versions()
	args := []string{"--provider", "kind", "--versions", oldV + "," + newV}
	if integration.Soak() {
		runReferenceAsSidecar(t, args...)
	} else {
		args = append(args, "--profiles", "mvp,discovery,ipmode", "--dataplane", "reference-ignoring-ipmode",
			"--dataplane-sync-bound", "5s", "--focus", kindFrontsFocus+"|IPM-")
		rep, code, dir, out := runWithReferenceSidecar(t, args...)
		mustFail := map[string]string{}
		for _, id := range kindDataplaneGuard {
			mustFail[id] = "directly, without the load balancer"
		}
		if code != 1 {
			t.Errorf("exit %d, want 1 (the dataplane's failures):\n%s%s", code, tail(out, 30), failedTests(dir))
		}
		for _, missed := range report.MissedFailures(rep, mustFail) {
			t.Errorf("%s (the request must have bypassed the load balancer)", missed)
		}
		// Every other test the focus names must have passed: the fronts' five, every ipmode test.
		expectSelectedPassed(t, "kind fronts and the flawed dataplane", rep, kindFrontsFocus+"|IPM-", kindDataplaneGuard...)
		if rep.Dataplane != "reference-ignoring-ipmode" {
			t.Errorf("the report names dataplane %q, want reference-ignoring-ipmode", rep.Dataplane)
		}
		assertNoDataplaneLeft(t)
	}
	expectNoNewContainers(t, rt, before)
	assertNoKindRunLeft(t)
}

// kindDataplaneGuard are the tests the reference dataplane that ignores ipMode fails on
// kind (every node's traffic to a Proxy IP short-circuited): its failures show the ipmode
// profile can fail on kind, its passes of every other test that kind's wiring fails none.
var kindDataplaneGuard = []string{"IPM-103", "IPM-105", "IPM-107"}

// kindFrontsFocus is TestKindFronts' instance in make test, one test per thing a kind
// front does: proxy to the other node (MVP-010), carry the user to it, as kubeadm's
// front-proxy client, into its audit log on the node (MVP-043), answer 503 for a crashed
// node (MVP-022), die and come back with its node's apiserver (MVP-051: the node's
// manifest is put back and the sidecar restarted in the test's cleanup), merge discovery
// (DISC-001).
const kindFrontsFocus = `MVP-0(10|22|43|51)|DISC-001`

// requireKind skips (or fails, as integration.RequireKind decides) a test that needs kind's
// Docker engine where there is none.
func requireKind(t *testing.T) {
	t.Helper()
	integration.RequireKind(t, func() error {
		rt, err := containers.Connect(context.Background())
		if err == nil {
			rt.Close()
		}
		return err
	})
}

// assertNoKindRunLeft fails when the kind cluster of a run whose process has exited is
// still there. Runs of other tests, side by side, are alive, and not counted.
func assertNoKindRunLeft(t *testing.T) {
	t.Helper()
	names, err := kind.Names()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if process.OwnerGone(n, kind.RunPrefix, "-") {
			t.Errorf("kind cluster %s of a run that has exited is still there", kind.KindName(n))
		}
	}
}
