package campaign

import (
	"errors"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// The comparison ends as conformance does: Failed when the pairs differ or a test failed,
// Incomplete when they agree and nothing failed but something could not run, nil otherwise.
func TestEmulationVerdict(t *testing.T) {
	run := func(tests ...report.Test) *report.Conformance {
		return &report.Conformance{Endpoints: []report.Endpoint{{Name: "apiserver-1", Version: "v1.36.3"}}, Tests: tests}
	}
	passed := report.Test{ID: "MVP-010", Result: report.Passed}
	failed := report.Test{ID: "MVP-011", Profile: "mvp", Result: report.Failed, Failure: "got 404"}
	missing := report.Test{ID: "MVP-013", Result: report.Skipped, SkipKind: report.Missing, SkipReason: "missing SkewedStatus: ..."}
	for _, tc := range []struct {
		name           string
		real, emulated *report.Conformance
		outcome        string // "": nil error
		want           string // in the error
	}{
		{"agree and pass", run(passed), run(passed), "", ""},
		{"differ", run(passed, failed), run(passed, passed), "failed", "did not predict the real skew: 1 of 2 tests differ, MVP-011"},
		{"both fail the same test", run(passed, failed), run(passed, failed), "failed", "a test failed on both"},
		{"both incomplete", run(passed, missing), run(passed, missing), "incomplete", "incomplete"},
	} {
		for _, r := range []*report.Conformance{tc.real, tc.emulated} {
			report.Summarize(r)
		}
		err := EmulationVerdict(matrix.CompareEmulation(nil, tc.real, tc.emulated), tc.real, tc.emulated, 7)
		if got := outcome(err); got != tc.outcome || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %s, %v; want %q and %q", tc.name, got, err, tc.outcome, tc.want)
		}
	}
}

// outcome names a campaign's typed outcome: "failed", "incomplete", "" for none, else "error".
func outcome(err error) string {
	var failed Failed
	var incomplete Incomplete
	switch {
	case err == nil:
		return ""
	case errors.As(err, &failed):
		return "failed"
	case errors.As(err, &incomplete):
		return "incomplete"
	}
	return "error"
}
