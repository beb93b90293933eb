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

// TestKindBadInput: what --provider kind refuses, before any node is made.
func TestKindBadInput(t *testing.T) {
	state := t.TempDir()
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown provider", []string{"cluster", "create", "--name", "p", "--provider", "kvm"}, `unknown provider "kvm"`},
		{"unknown version", []string{"cluster", "create", "--provider", "kind", "--name", "badver", "--versions", "v1.99.0"}, "no Kubernetes v1.99.0"},
		{"unsupported flag", []string{"cluster", "create", "--provider", "kind", "--name", "np", "--no-peer-proxy", "1"}, "not supported with --provider kind"},
		{"reference", []string{"cluster", "create", "--provider", "kind", "--name", "rf", "--reference", "peerproxy"}, "not supported with --provider kind"},
		{"conformance with a kubeconfig", []string{"conformance", "--provider", "kind", "--kubeconfig", "/nonexistent"}, "cannot go with --kubeconfig"},
		{"node image without version", []string{"images", "node"}, "--version is required"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run(t, state, tc.args...)
			if code == 0 || !strings.Contains(out, tc.want) {
				t.Errorf("want a non-zero exit and %q; exit %d:\n%s", tc.want, code, out)
			}
		})
	}
	t.Run("no Docker engine", func(t *testing.T) {
		cmd := exec.Command(cli, "cluster", "create", "--provider", "kind", "--name", "nodocker", "--versions", "v1.36.3")
		cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state, "DOCKER_HOST=unix:///nonexistent/docker.sock")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the Docker engine is not reachable") {
			t.Errorf("want a failure saying Docker is not reachable; err %v:\n%s", err, out)
		}
	})
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("failed commands left cluster directories: %v", entries)
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
		{dataplane: "reference-ignoring-ipmode", failed: []string{"IPM-103", "IPM-105"}},
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
