package matrix

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// run is a conformance report of upstream servers of the given versions with one test's result.
func run(id string, res report.Result, deviation string, versions ...string) *report.Conformance {
	c := &report.Conformance{Upstream: "started", Tests: []report.Test{{ID: id, Result: res, KnownDeviation: deviation}}}
	for _, v := range versions {
		c.Endpoints = append(c.Endpoints, report.Endpoint{Version: v})
	}
	return c
}

// looked is run with the test's deviation checks: where it looked for the deviation
// ("v1.34.4") and what it saw.
func looked(r *report.Conformance, seen string, at ...string) *report.Conformance {
	for _, v := range at {
		r.Tests[0].DeviationChecks = append(r.Tests[0].DeviationChecks, report.DeviationCheck{Endpoint: "apiserver", Version: v, Seen: seen})
	}
	return r
}

func TestCheckRanges(t *testing.T) {
	dev := &framework.Deviation{Since: "1.33", Until: "1.34"}
	tests := []framework.Test{{ID: "T-1", Since: "1.28", Deviation: dev}}
	runs := []*report.Conformance{
		run("T-1", report.Skipped, "", "v1.27.16", "v1.27.16"),                                                         // below the test
		looked(run("T-1", report.Passed, "", "v1.32.13", "v1.32.13"), report.DeviationAbsent, "v1.32.13"),              // below the deviation, absent
		looked(run("T-1", report.Passed, "seen", "v1.33.13", "v1.34.4"), report.DeviationObserved, "v1.34.4"),          // inside, observed
		looked(run("T-1", report.Passed, "", "v1.34.4", "v1.35.4"), report.DeviationAbsent, "v1.35.4"),                 // absent where the 1.35 server proxied
		run("T-1", report.Passed, "", "v1.35.4", "v1.36.3"),                                                            // not looked for: no evidence
		{Endpoints: []report.Endpoint{{Version: "v1.36.3"}}, Tests: []report.Test{{ID: "T-1", Result: report.Passed}}}, // not upstream: the test's evidence only
		run("OTHER", report.Failed, "", "v1.35.4"),                                                                     // another test
		run("T-1", report.Skipped, "", "v1.35.4"),                                                                      // skipped inside: a missing feature
	}
	checks := CheckRanges(tests, runs)
	if len(checks) != 2 {
		t.Fatalf("%d checks, want the test's and the deviation's", len(checks))
	}
	test, devc := checks[0], checks[1]
	if !test.Exercised() || len(test.Inside) != 5 || len(test.Below) != 1 || len(test.Above) != 0 {
		t.Errorf("test range: %+v", test)
	}
	if !devc.Exercised() || len(devc.Inside) != 1 || len(devc.Below) != 1 || len(devc.Above) != 1 || len(devc.NoEvidence) != 1 {
		t.Errorf("deviation range: %+v", devc)
	}
	if devc.Range != "1.33-1.34" || test.Range != "1.28+" {
		t.Errorf("ranges %q, %q", test.Range, devc.Range)
	}
}

// A deviation's range is not exercised by runs that merely passed: inside, the deviation
// must have been observed; beyond an end, looked for and found absent.
func TestDeviationRangeNeedsObservations(t *testing.T) {
	tests := []framework.Test{{ID: "T-1", Since: "1.28", Deviation: &framework.Deviation{Since: "1.33", Until: "1.34"}}}
	runs := []*report.Conformance{
		run("T-1", report.Passed, "", "v1.32.13", "v1.32.13"),
		run("T-1", report.Passed, "", "v1.33.13", "v1.34.4"),
		run("T-1", report.Passed, "", "v1.35.4", "v1.36.3"),
	}
	c := CheckRanges(tests, runs)[1]
	if c.Exercised() || strings.Join(c.Missing, ",") != "inside,below 1.33,above 1.34" {
		t.Errorf("deviation range exercised by runs that never looked for it: missing %q, %+v", c.Missing, c)
	}
	// Absent inside is no evidence either (upstream may show it by chance), and observed
	// beyond an end contradicts the range.
	runs = []*report.Conformance{
		looked(run("T-1", report.Passed, "", "v1.33.13", "v1.34.4"), report.DeviationAbsent, "v1.34.4"),
		looked(run("T-1", report.Passed, "seen", "v1.34.4", "v1.35.4"), report.DeviationObserved, "v1.35.4"),
	}
	c = CheckRanges(tests, runs)[1]
	if len(c.Inside) != 0 || len(c.NoEvidence) != 1 || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "observed outside") {
		t.Errorf("deviation range: %+v", c)
	}
}

func TestCheckRangesFindsContradictionsAndGaps(t *testing.T) {
	tests := []framework.Test{{ID: "T-1", Since: "1.30", Until: "1.34", Deviation: &framework.Deviation{Since: "1.36"}}}
	runs := []*report.Conformance{
		run("T-1", report.Failed, "", "v1.32.13"), // failed inside the test's range
		run("T-1", report.Passed, "", "v1.35.4"),  // ran above it
		run("T-1", report.Failed, "", "v1.35.4"),  // failed below the deviation's
	}
	checks := CheckRanges(tests, runs)
	test, devc := checks[0], checks[1]
	if test.Exercised() || len(test.Problems) != 3 || strings.Join(test.Missing, ",") != "below 1.30" {
		t.Errorf("test range: problems %q missing %q", test.Problems, test.Missing)
	}
	if len(devc.Problems) != 2 || !strings.Contains(devc.Problems[0], "too narrow") || strings.Join(devc.Missing, ",") != "inside" {
		t.Errorf("deviation range: problems %q missing %q", devc.Problems, devc.Missing)
	}
	// A deviation that begins where its test does needs no run below it: the test skips
	// there, and its own range says so.
	same := CheckRanges([]framework.Test{{ID: "T-2", Since: "1.28", Deviation: &framework.Deviation{Since: "1.28"}}},
		[]*report.Conformance{looked(run("T-2", report.Passed, "seen", "v1.32.13"), report.DeviationObserved, "v1.32.13")})
	if !same[1].Exercised() {
		t.Errorf("deviation sharing its test's lower end: missing %q", same[1].Missing)
	}
	md := RangesMarkdown(checks)
	for _, w := range []string{"| T-1 | 1.30-1.34 |", "CONTRADICTED: failed inside its range: v1.32.13: failed", "0 of 2 ranges exercised on both sides, 2 contradicted"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
}
