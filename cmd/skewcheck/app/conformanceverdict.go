package app

import (
	"fmt"
	"io"
	"slices"

	"github.com/skewcheck/skewcheck/framework/report"
)

// verdictError turns the run's verdict into the command's outcome: nil (exit 0), "not
// conformant" (exit 1), or "incomplete" (exit 2), so a script can tell an implementation's
// failure from a run that could not check everything here.
func verdictError(out io.Writer, rep *report.Conformance, details string) error {
	switch rep.Verdict() {
	case report.VerdictFailed:
		return fmt.Errorf("not conformant: %s (details in %s)", rep.FailingProfiles(), details)
	case report.VerdictIncomplete:
		missing := rep.MissingTests()
		if len(missing) == 0 {
			return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: no test ran (details in %s)", details)}
		}
		return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: nothing failed, but %d tests that apply could not run here (NOT TESTED above; details in %s)", len(missing), details)}
	}
	if slices.ContainsFunc(rep.Tests, func(t report.Test) bool { return t.SkipKind == report.Deselected }) {
		fmt.Fprintln(out, "every selected test passed; the profiles are partial only because --focus/--skip left tests out")
	}
	for _, p := range rep.Profiles {
		if p.Result == report.ProfileNotApplicable {
			fmt.Fprintf(out, "profile %s: no test of it applies to these versions; nothing is claimed for it\n", p.Name)
		}
	}
	return nil
}

// failRecorder stands in for *testing.T when ginkgo runs outside go test; the report, not
// this, carries the outcome.
type failRecorder struct{}

func (failRecorder) Fail() {}

// printSummary is the run's console summary, as the report writes it.
func printSummary(out io.Writer, rep *report.Conformance, files []string) {
	report.WriteSummary(out, rep, files)
}
