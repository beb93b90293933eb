package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteSummary writes the console summary of a run written to files: the proxy's state
// when it explains the failures, a row per test, what the specification and the code say
// apart, a line per profile, the tests that apply and could not run, and the closing line.
func WriteSummary(out io.Writer, rep *Conformance, files []string) {
	fmt.Fprintln(out)
	WriteProxyCause(out, rep.ProxyState)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tRESULT\tTIME\tNOTE")
	for _, t := range rep.Tests {
		result, note := summaryRow(t)
		fmt.Fprintf(w, "%s\t%s\t%v\t%s\n", t.ID, result, t.Duration.Round(time.Millisecond), note)
	}
	w.Flush()
	WriteSpecVsCode(out, rep.Tests)
	for _, p := range rep.Profiles {
		line := fmt.Sprintf("profile %s: %s", p.Name, p.Result)
		if p.NotApplicable > 0 {
			line += fmt.Sprintf(" (%d not applicable to these versions or this target, not counted)", p.NotApplicable)
		}
		fmt.Fprintln(out, line)
	}
	if missing := rep.MissingTests(); len(missing) > 0 {
		// Loud on purpose: a skip for something missing is no finding about the
		// implementation, but it is no evidence either, and must not pass unnoticed.
		fmt.Fprintf(out, "\nNOT TESTED: %d tests that apply could not run on this target or machine; the run claims nothing about them:\n", len(missing))
		for _, t := range missing {
			fmt.Fprintf(out, "  %s  %s\n", t.ID, t.SkipReason)
		}
		fmt.Fprintln(out)
	}
	if accepted := rep.AcceptedTests(); len(accepted) > 0 {
		fmt.Fprintf(out, "\nNOT TESTED, ACCEPTED (--accept-missing %s): %d tests that apply could not run for lacking a feature you accepted the target lacks; they do not make the run incomplete, and the run claims nothing about them:\n",
			strings.Join(rep.AcceptedMissing, ","), len(accepted))
		for _, t := range accepted {
			fmt.Fprintf(out, "  %s  %s\n", t.ID, t.SkipReason)
		}
		fmt.Fprintln(out)
	}
	if rep.Upstream == "declared" {
		fmt.Fprintln(out, "target declared upstream (--upstream): known upstream deviations were allowed on your word that these are unmodified kube-apiservers")
	}
	if note := PrereleaseNote(rep); note != "" {
		fmt.Fprintln(out, note)
	}
	fmt.Fprintf(out, "report: %s\n", strings.Join(files, ", "))
	fmt.Fprintln(out, ClosingLine(rep))
}

// summaryRow is a test's RESULT and NOTE in the summary: why it was skipped, the known
// deviation it showed, or the first line of its failure, then its measurements.
func summaryRow(t Test) (result, note string) {
	note = t.SkipReason
	result = string(t.Result)
	if t.SkipKind == NotApplicable {
		result = "not applicable"
		note = strings.TrimPrefix(note, "not applicable: ")
	}
	if t.KnownDeviation != "" {
		note = "KNOWN UPSTREAM DEVIATION: " + t.KnownDeviation
	}
	if t.Failure != "" {
		note = strings.SplitN(t.Failure, "\n", 2)[0]
	}
	for k, v := range t.Measurements {
		note += fmt.Sprintf(" %s=%.3f", k, v)
	}
	return result, strings.TrimSpace(note)
}
