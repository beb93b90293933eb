package layers

import (
	"fmt"
	"strings"
	"testing"
)

// clusters/stack is the one entry point that builds a run's stack (a cluster, a front, a
// dataplane) for the commands, the tests and a vendor importing skewcheck. Unlike the
// library roots (library_test.go) it brings every provider and front with it, which is
// its job; but never a command: what the CLI did by hand is what it replaces, and a vendor
// calling it must not get the CLI. This rule is on `go list -deps`, so no chain of
// imports brings cmd/ in either.

// stackRoot is the package the rule is on.
const stackRoot = "./clusters/stack"

// commandDeps are the packages of deps (full import paths) that are the module's commands.
func commandDeps(prefix string, deps []string) []string {
	var out []string
	for _, d := range deps {
		if rel, ok := strings.CutPrefix(d, prefix); ok && (rel == "cmd" || strings.HasPrefix(rel, "cmd/")) {
			out = append(out, rel)
		}
	}
	return out
}

// TestStackBringsNoCommand is the rule on the module as it is.
func TestStackBringsNoCommand(t *testing.T) {
	root, prefix, err := module()
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(root, "go", "list", "-deps", stackRoot)
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(out)
	if !strings.Contains(out, prefix+"clusters/front\n") {
		t.Fatalf("go list -deps %s lists no clusters/front among %d packages; the check would pass on nothing", stackRoot, len(deps))
	}
	for _, d := range commandDeps(prefix, deps) {
		t.Errorf("%s depends on %s: it builds a run for the commands, which call it, and must bring none of them. Move what it needs out of cmd/ (into clusters/ or framework/), or have the caller pass it in a Spec", stackRoot, d)
	}
}

// TestCommandDeps shows the rule catches what it is for, on made-up dependencies.
func TestCommandDeps(t *testing.T) {
	const m = "example.com/sc/"
	got := fmt.Sprint(commandDeps(m, []string{m + "clusters/front", m + "cmd/skewcheck/app", m + "clusters/providers", "example.com/other/cmd/x", m + "cmdline"}))
	if got != "[cmd/skewcheck/app]" {
		t.Errorf("command dependencies %s, want [cmd/skewcheck/app]", got)
	}
}
