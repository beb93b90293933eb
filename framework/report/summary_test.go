package report

import (
	"strings"
	"testing"
	"time"
)

// The summary has a row per test (the first line of a failure, a not-applicable test's
// reason without its prefix, measurements after the note), a line per profile with its
// tests that do not apply, the tests that apply and could not run, the files and the
// closing line last.
func TestWriteSummary(t *testing.T) {
	rep := &Conformance{
		Tests: []Test{
			{ID: "MVP-001", Result: Failed, Duration: 1500 * time.Millisecond, Failure: "got 404\nstack", Measurements: map[string]float64{"timeTo503": 2}},
			{ID: "MVP-002", Result: Skipped, SkipKind: NotApplicable, SkipReason: "not applicable: since v1.36"},
			{ID: "MVP-003", Result: Skipped, SkipKind: Missing, SkipReason: "skipped: missing AuditLog"},
		},
		Profiles: []Profile{{Name: "mvp", Result: "failure", NotApplicable: 1}},
	}
	var out strings.Builder
	WriteSummary(&out, rep, []string{"r.yaml", "r.json"})
	got := out.String()
	for _, want := range []string{
		"MVP-001  failed          1.5s  got 404 timeTo503=2.000\n",
		"MVP-002  not applicable  0s    since v1.36\n",
		"profile mvp: failure (1 not applicable to these versions or this target, not counted)\n",
		"\nNOT TESTED: 1 tests that apply could not run on this target or machine; the run claims nothing about them:\n  MVP-003  skipped: missing AuditLog\n",
		"report: r.yaml, r.json\n" + ClosingLine(rep) + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, ClosingLine(rep)+"\n") {
		t.Errorf("summary does not end with the closing line:\n%s", got)
	}
}
