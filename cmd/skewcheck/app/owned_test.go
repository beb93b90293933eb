//go:build !incluster

package app

import (
	"strings"
	"testing"
)

// --owned speaks of the cluster behind --contexts: without them it says nothing, and is
// refused before anything starts, saying where it goes.
func TestOwnedGoesWithContexts(t *testing.T) {
	for _, args := range [][]string{{"conformance", "--owned"}, {"conformance", "--kubeconfig", "x", "--owned"}} {
		out, code := runApp(t, t.TempDir(), args...)
		if code != 1 || !strings.Contains(out, "--owned says the cluster behind --contexts is yours to disturb: it goes with --kubeconfig FILE --contexts a,b") || strings.Contains(out, "starting") {
			t.Errorf("%v: exit %d, want 1 and where --owned goes, before anything starts:\n%s", args, code, out)
		}
	}
}
