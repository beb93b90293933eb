package matrix

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// RangeCheck is what real runs showed of one version range: a test's (the versions the
// behaviour exists in) or a known deviation's (the versions upstream gets it wrong in).
// A range is exercised when a run inside it and, for each bounded end, a run beyond that
// end agree with it: a test passes inside and skips outside; a deviation is observed inside
// and found absent outside (checkDeviationRange).
type RangeCheck struct {
	ID    string // the test's ID, or ID + " deviation"
	Range string
	// Inside, Below and Above are the runs on each side, as "versions: outcome".
	Inside, Below, Above []string
	// Missing says which evidence no run gave: "inside", "below 1.28", "above 1.34".
	Missing []string
	// Problems are runs that contradict the range: a failure inside it, a test that ran
	// outside it, a failure outside a deviation's range.
	Problems []string
	// NoEvidence are a deviation's runs that say nothing of its range: the test passed
	// without the deviation observed inside it, or without it looked for.
	NoEvidence []string
}

// Exercised reports whether every side of the range has a run and none contradicts it.
func (c RangeCheck) Exercised() bool { return len(c.Missing) == 0 && len(c.Problems) == 0 }

// CheckRanges sets every test's range, and every known deviation's, against conformance
// runs: the evidence that a claimed range is true of real binaries. A test's range is set
// against every run that included the test; a deviation's only against runs of upstream
// Kubernetes (reports whose target skewcheck started, or declared upstream), the only
// targets a deviation is allowed for.
func CheckRanges(tests []framework.Test, runs []*report.Conformance) []RangeCheck {
	var out []RangeCheck
	for _, t := range tests {
		out = append(out, checkTestRange(t, runs))
		if t.Deviation != nil {
			out = append(out, checkDeviationRange(t, runs))
		}
	}
	return out
}

func checkTestRange(t framework.Test, runs []*report.Conformance) RangeCheck {
	c := RangeCheck{ID: t.ID, Range: t.VersionRange()}
	for _, r := range runs {
		// Any target counts here, skewcheck's references and vendors' proxies too: a test's
		// range is about the versions of the apiservers behind the endpoints.
		res, ok := resultOf(r, t.ID)
		if !ok {
			continue
		}
		versions := endpointVersions(r)
		seen := fmt.Sprintf("%s: %s", strings.Join(versions, " + "), outcome(res))
		side := sideOf(versions, t.Since, t.Until)
		switch {
		case side == "inside" && res.Result == report.Skipped:
			// skipped for a missing feature: no evidence either way
		case side == "inside" && res.Result == report.Failed:
			c.add(side, seen, "failed inside its range")
		case side != "inside" && res.Result != report.Skipped:
			c.add(side, seen, "ran outside its range")
		default:
			c.add(side, seen, "")
		}
	}
	c.missing(t.Since, t.Until)
	return c
}

// checkDeviationRange judges a deviation's range by what runs saw of it, never by a test
// merely passing: each end is verified only by a run that observed the deviation at an
// endpoint inside the range, or found it absent (the behaviour it covers checked and held)
// at an endpoint beyond that end (report.DeviationCheck). A run that did neither, a report
// from before the checks were recorded among them, is listed as no evidence.
func checkDeviationRange(t framework.Test, runs []*report.Conformance) RangeCheck {
	d := t.Deviation
	c := RangeCheck{ID: t.ID + " deviation", Range: d.VersionRange()}
	for _, r := range runs {
		res, ok := resultOf(r, t.ID)
		if !ok || r.Upstream == "" || res.Result == report.Skipped {
			continue
		}
		versions := endpointVersions(r)
		if res.Result == report.Failed {
			// The allowance went to no observation the run made: whatever failed, the
			// deviation's range did not cover it. Placed by its endpoints, as a test's run is.
			seen := fmt.Sprintf("%s: %s", strings.Join(versions, " + "), outcome(res))
			if side := sideOf(versions, d.Since, d.Until); side == "inside" {
				c.add(side, seen, "failed inside the deviation's range")
			} else {
				c.add(side, seen, "failed outside the deviation's range (is the range too narrow?)")
			}
			continue
		}
		evidence := false
		for _, dc := range res.DeviationChecks {
			side := sideOf([]string{dc.Version}, d.Since, d.Until)
			seen := fmt.Sprintf("%s at %s (run of %s)", dc.Seen, dc.Version, strings.Join(versions, " + "))
			switch {
			case dc.Seen == report.DeviationObserved && side != "inside":
				c.add(side, seen, "observed outside the deviation's range (is the range too narrow?)")
			case dc.Seen == report.DeviationObserved || side != "inside":
				c.add(side, seen, "")
			default:
				continue // absent inside: upstream may show it by chance; evidence of nothing
			}
			evidence = true
		}
		if !evidence {
			c.NoEvidence = append(c.NoEvidence, fmt.Sprintf("%s: %s, %s", strings.Join(versions, " + "), outcome(res), lookedFor(res)))
		}
	}
	// Beyond an end the deviation shares with its test, the test itself skips: the test's
	// own range answers for that side.
	since, until := d.Since, d.Until
	if since != "" && t.Since != "" && framework.CompareMinor(since, t.Since) <= 0 {
		since = ""
	}
	if until != "" && t.Until != "" && framework.CompareMinor(until, t.Until) >= 0 {
		until = ""
	}
	c.missing(since, until)
	return c
}

// lookedFor says why a passed run is no evidence of its test's deviation range.
func lookedFor(res report.Test) string {
	if len(res.DeviationChecks) == 0 {
		return "the deviation was not looked for (no deviation checks in the report)"
	}
	return "the deviation was absent inside its range"
}

// add records a run on one side of the range, and what it contradicts, if anything.
func (c *RangeCheck) add(side, seen, problem string) {
	switch side {
	case "inside":
		c.Inside = append(c.Inside, seen)
	case "below":
		c.Below = append(c.Below, seen)
	default:
		c.Above = append(c.Above, seen)
	}
	if problem != "" {
		c.Problems = append(c.Problems, problem+": "+seen)
	}
}

func (c *RangeCheck) missing(since, until string) {
	if len(c.Inside) == 0 {
		c.Missing = append(c.Missing, "inside")
	}
	if since != "" && len(c.Below) == 0 {
		c.Missing = append(c.Missing, "below "+since)
	}
	if until != "" && len(c.Above) == 0 {
		c.Missing = append(c.Missing, "above "+until)
	}
}

// sideOf places a run against a range: inside when every endpoint is in it, else below
// or above by the first endpoint outside it.
func sideOf(versions []string, since, until string) string {
	for _, v := range versions {
		if !framework.InRange(v, since, until) {
			if since != "" && framework.CompareMinor(v, since) < 0 {
				return "below"
			}
			return "above"
		}
	}
	return "inside"
}

func resultOf(r *report.Conformance, id string) (report.Test, bool) {
	for _, t := range r.Tests {
		if t.ID == id {
			return t, true
		}
	}
	return report.Test{}, false
}

// endpointVersions are the distinct versions of a run's endpoints, oldest first.
func endpointVersions(r *report.Conformance) []string {
	set := map[string]bool{}
	var out []string
	for _, e := range r.Endpoints {
		if !set[e.Version] {
			set[e.Version] = true
			out = append(out, e.Version)
		}
	}
	sort.Slice(out, func(i, j int) bool { return framework.CompareVersions(out[i], out[j]) < 0 })
	return out
}

func outcome(t report.Test) string {
	if t.KnownDeviation != "" {
		return "passed as the known deviation"
	}
	return string(t.Result)
}

// RangesMarkdown is the table `skewcheck report ranges` prints: one row per range.
func RangesMarkdown(checks []RangeCheck) string {
	var b strings.Builder
	b.WriteString("| range of | versions | inside | below | above | no evidence | verdict |\n|---|---|---|---|---|---|---|\n")
	for _, c := range checks {
		verdict := "exercised"
		switch {
		case len(c.Problems) > 0:
			verdict = "CONTRADICTED: " + strings.Join(c.Problems, "; ")
		case len(c.Missing) > 0:
			verdict = "no run " + strings.Join(c.Missing, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.ID, c.Range, cell(c.Inside), cell(c.Below), cell(c.Above), cell(c.NoEvidence), verdict)
	}
	b.WriteString("\n" + RangesSummary(checks) + "\n")
	return b.String()
}

// RangesSummary is the closing line of the table.
func RangesSummary(checks []RangeCheck) string {
	exercised, contradicted := 0, 0
	for _, c := range checks {
		if c.Exercised() {
			exercised++
		}
		if len(c.Problems) > 0 {
			contradicted++
		}
	}
	return fmt.Sprintf("%d of %d ranges exercised on both sides, %d contradicted", exercised, len(checks), contradicted)
}

// cell lists distinct runs, most frequent first, so a row stays short when many runs agree.
func cell(seen []string) string {
	if len(seen) == 0 {
		return "-"
	}
	count := map[string]int{}
	var order []string
	for _, s := range seen {
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = s
		if count[s] > 1 {
			parts[i] += fmt.Sprintf(" (%d runs)", count[s])
		}
	}
	return strings.Join(parts, "<br>")
}
