package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/kind"
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
// the node's network namespace watching the node's own apiserver: kube-proxy passes, so
// does the reference shipped as an image (its container joins the node's), and the
// reference with ipMode handling switched off fails exactly the tests about Proxy, so the
// profile can fail on kind too. Each run deletes its cluster and leaves no namespace and
// no dataplane process or container.
func TestKindDataplanes(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	integration.RequireKind(t, func() error {
		rt, err := containers.Connect(context.Background())
		if err == nil {
			rt.Close()
		}
		return err
	})
	rt := requireDocker(t)
	image := buildReferenceImage(t, rt, "dataplane")
	for _, tc := range []dataplaneCase{
		{dataplane: "kube-proxy-nftables", pass: true},
		{dataplane: "image", args: []string{"--dataplane-image", image}, pass: true},
		{dataplane: "reference-ignoring-ipmode", failed: []string{"IPM-103", "IPM-105", "IPM-107"}},
	} {
		tc.args = append(tc.args, "--provider", "kind")
		t.Run(tc.dataplane, func(t *testing.T) {
			before := skewcheckContainers(t, rt)
			runDataplaneCase(t, tc)
			expectNoNewContainers(t, rt, before)
			if out, _ := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster", "--format", "{{.Names}}").Output(); strings.Contains(string(out), kind.RunPrefix) {
				t.Errorf("the run's kind nodes are still there:\n%s", out)
			}
		})
	}
}
