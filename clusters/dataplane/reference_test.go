package dataplane

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/reference/ipmode"
)

// The reference dataplane runs by re-executing this binary, so a binary whose main does not
// call RunReferenceIfCalled is refused (re-executed, it would run its own main again); once
// it does, the node gets this binary with the dataplane's config in referenceEnv.
func TestReferenceNeedsTheReexecHook(t *testing.T) {
	t.Cleanup(func() { referenceHooked = false })
	node := NodeInfo{Name: "node-1", Kubeconfig: "/tmp/node-1.kubeconfig"}
	if _, err := (Reference{}).Process(context.Background(), node); err == nil || !strings.Contains(err.Error(), "RunReferenceIfCalled") {
		t.Fatalf("Process before the hook: err = %v, want one naming RunReferenceIfCalled", err)
	}

	RunReferenceIfCalled() // referenceEnv is unset: returns at once
	p, err := (Reference{IgnoreIPMode: true, Flaw: ipmode.FlawCloseNodePort}).Process(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	if len(p.Argv) != 1 || p.Argv[0] != self {
		t.Errorf("argv = %q, want this binary %q", p.Argv, self)
	}
	if len(p.Env) != 1 || !strings.HasPrefix(p.Env[0], referenceEnv+"=") {
		t.Fatalf("env = %q, want only %s", p.Env, referenceEnv)
	}
	var cfg ipmode.Config
	if err := json.Unmarshal([]byte(strings.TrimPrefix(p.Env[0], referenceEnv+"=")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.NodeName != node.Name || cfg.Kubeconfig != node.Kubeconfig || !cfg.IgnoreIPMode || cfg.Flaw != ipmode.FlawCloseNodePort {
		t.Errorf("config = %+v, want the node's name and kubeconfig, ignoring ipMode, with the flaw", cfg)
	}
}
