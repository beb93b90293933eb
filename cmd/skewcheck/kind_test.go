package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
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
		cmd.Env = append(os.Environ(), "SKEWCHECK_STATE_DIR="+state, "DOCKER_HOST=unix:///nonexistent/docker.sock")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "the Docker engine is not reachable") {
			t.Errorf("want a failure saying Docker is not reachable; err %v:\n%s", err, out)
		}
	})
	if entries, _ := os.ReadDir(state); len(entries) != 0 {
		t.Errorf("failed commands left cluster directories: %v", entries)
	}
}
