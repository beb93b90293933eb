package main

import (
	"regexp"
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// makeTestFocus is an end-to-end test's --focus: focus, its fast instance, in make test;
// "" (every test) in make soak, which runs its full table (docs/development.md).
func makeTestFocus(focus string) string {
	if integration.Soak() {
		return ""
	}
	return focus
}

// withFocus is args with --focus focus, or args alone when focus is "" (every test).
func withFocus(args []string, focus string) []string {
	if focus == "" {
		return args
	}
	return append(args, "--focus", focus)
}

// expectSelectedPassed fails unless every test of the report whose ID focus matches ("":
// every test) passed, but for those in failing, and at least one did: a focus that
// selects nothing, or a selected test that did not run, checks nothing.
func expectSelectedPassed(t *testing.T, what string, rep report.Conformance, focus string, failing ...string) {
	t.Helper()
	re, passed := regexp.MustCompile(focus), 0
	for _, r := range rep.Tests {
		switch {
		case !re.MatchString(r.ID) || slices.Contains(failing, r.ID):
		case r.Result == report.Passed:
			passed++
		default:
			t.Errorf("%s: %s %s: %s%s", what, r.ID, r.Result, r.Failure, r.SkipReason)
		}
	}
	if passed == 0 {
		t.Errorf("%s: no test that %q selects passed", what, focus)
	}
}
