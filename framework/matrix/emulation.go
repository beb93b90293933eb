package matrix

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// EmulationFile and EmulationJSONFile are where skewcheck emulation writes its comparison.
const (
	EmulationFile     = "emulation.md"
	EmulationJSONFile = "emulation.json"
)

// Emulation sets a run against a real skewed pair (an older and a newer kube-apiserver)
// beside the same run against an emulated pair (the newer binary twice, one of them
// started with --emulated-version of the older release): does a CI that emulates the
// older release predict what real skew does?
type Emulation struct {
	Date time.Time `json:"date"`
	// Real and Emulated are each run's endpoints, as their reports name them.
	Real     []report.Endpoint `json:"real"`
	Emulated []report.Endpoint `json:"emulated"`
	Rows     []EmulationRow    `json:"rows"`
	// Served are the GVRs an endpoint of one pair served and the endpoint of the same
	// name in the other pair did not, by endpoint name.
	Served []ServedDifference `json:"served,omitempty"`
	// Skew are the GVRs that are in one pair's skew (served by some of its servers and not
	// others) and not in the other's: what the proxy tests exercise.
	Skew []SkewDifference `json:"skew,omitempty"`
	// RealVerdict and EmulatedVerdict are each run's own: passed, failed, incomplete.
	RealVerdict     string `json:"realVerdict"`
	EmulatedVerdict string `json:"emulatedVerdict"`
}

// EmulationRow is one test on both pairs.
type EmulationRow struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// Real and Emulated are the results as report compare shows them: passed, failed,
	// skipped, not-applicable, deviation; "-" when the run did not have the test.
	Real     string `json:"real"`
	Emulated string `json:"emulated"`
	Agree    bool   `json:"agree"`
	// Why explains a difference: what each run saw, and the cause where it is known.
	Why string `json:"why,omitempty"`
	// Measurements are the figures each run took, by pair ("real", "emulated").
	Measurements map[string]map[string]float64 `json:"measurements,omitempty"`
}

// ServedDifference is what one endpoint served in one pair and not in the other.
type ServedDifference struct {
	Endpoint     string   `json:"endpoint"`
	OnlyReal     []string `json:"onlyReal,omitempty"`
	OnlyEmulated []string `json:"onlyEmulated,omitempty"`
}

// SkewDifference is a GVR in one pair's skew only, with the endpoints serving it there.
type SkewDifference struct {
	GVR  string `json:"gvr"`
	Pair string `json:"pair"` // real or emulated: the pair whose skew has it
	// ServedBy are the endpoints of that pair serving it.
	ServedBy []string `json:"servedBy"`
}

// The pairs' names, in reports and tables.
const (
	RealPair     = "real"
	EmulatedPair = "emulated"
)

// CompareEmulation puts the runs side by side, test by test, and explains every
// difference it can from the reports and the tests' own ranges.
func CompareEmulation(tests []framework.Test, real, emulated *report.Conformance) Emulation {
	e := Emulation{Date: emulated.Date, Real: real.Endpoints, Emulated: emulated.Endpoints,
		RealVerdict: verdictName(real.Verdict()), EmulatedVerdict: verdictName(emulated.Verdict())}
	e.Served, e.Skew = servedDifferences(real.Endpoints, emulated.Endpoints), skewDifferences(real.Endpoints, emulated.Endpoints)
	byID := map[string]framework.Test{}
	for _, t := range tests {
		byID[t.ID] = t
	}
	c := report.Compare([]string{RealPair, EmulatedPair}, []*report.Conformance{real, emulated})
	for _, r := range c.Rows {
		if deselected(testOf(real, r.ID)) && deselected(testOf(emulated, r.ID)) {
			continue // --focus or --skip left it out of both: nothing to compare
		}
		row := EmulationRow{ID: r.ID, Description: r.Description, Real: resultCell(r.Results[RealPair]), Emulated: resultCell(r.Results[EmulatedPair]),
			Measurements: r.Measurements}
		row.Agree = row.Real == row.Emulated
		if !row.Agree {
			row.Why = e.why(byID[r.ID], testOf(real, r.ID), testOf(emulated, r.ID))
		}
		e.Rows = append(e.Rows, row)
	}
	return e
}

func resultCell(result string) string {
	if result == "" {
		return "-"
	}
	return result
}

func verdictName(v report.Verdict) string {
	switch v {
	case report.VerdictFailed:
		return "failed"
	case report.VerdictIncomplete:
		return "incomplete"
	}
	return "passed"
}

func deselected(t *report.Test) bool { return t != nil && t.SkipKind == report.Deselected }

func testOf(r *report.Conformance, id string) *report.Test {
	for i := range r.Tests {
		if r.Tests[i].ID == id {
			return &r.Tests[i]
		}
	}
	return nil
}

// Differing are the IDs of the tests whose results differ.
func (e Emulation) Differing() []string {
	var out []string
	for _, r := range e.Rows {
		if !r.Agree {
			out = append(out, r.ID)
		}
	}
	return out
}

// why says what each pair saw of a test whose results differ, then the causes the
// comparison can name: the emulating server runs its binary's code, so a test or
// deviation range that parts the older release from the binary's applies to the two
// pairs differently; and the pairs may serve different GVRs.
func (e Emulation) why(t framework.Test, real, emulated *report.Test) string {
	parts := []string{RealPair + ": " + seen(real), EmulatedPair + ": " + seen(emulated)}
	older, binary := e.emulatedRelease()
	if older != "" && t.ID != "" {
		if framework.InRange(older, t.Since, t.Until) != framework.InRange(binary, t.Since, t.Until) {
			in, out := inOrOut(binary, older, t.Since, t.Until)
			parts = append(parts, fmt.Sprintf("cause: the test applies to Kubernetes %s, which includes %s and not %s: the emulating server is judged by its binary's code, which emulation does not change",
				t.VersionRange(), in, out))
		}
		if d := t.Deviation; d != nil && framework.InRange(older, d.Since, d.Until) != framework.InRange(binary, d.Since, d.Until) {
			in, out := inOrOut(binary, older, d.Since, d.Until)
			parts = append(parts, fmt.Sprintf("cause: the known upstream deviation is in Kubernetes %s, which includes %s and not %s: the emulating server runs %s's code, so it has that release's defects, not %s's",
				d.VersionRange(), in, out, binary, older))
		}
	}
	if len(e.Served) > 0 || len(e.Skew) > 0 {
		parts = append(parts, "the pairs serve different GVRs (listed below the table), which may decide what the test exercised")
	}
	return strings.Join(parts, "; ")
}

// emulatedRelease is the release the emulated pair emulates and the binary that does it:
// "1.35", "v1.36.3"; "" when no endpoint of it emulates anything.
func (e Emulation) emulatedRelease() (older, binary string) {
	for _, ep := range e.Emulated {
		if ep.EmulationVersion != "" {
			return ep.EmulationVersion, ep.Version
		}
	}
	return "", ""
}

// inOrOut orders a and b as (the one inside since..until, the one outside).
func inOrOut(a, b, since, until string) (in, out string) {
	if framework.InRange(a, since, until) {
		return a, b
	}
	return b, a
}

// seen is one run's result of a test in a few words: its failure's first line, its skip
// reason, or its result, with where it looked for its known deviation and what it saw
// (the deviation's own words are in docs/deviations.md and the run's report).
func seen(t *report.Test) string {
	switch {
	case t == nil:
		return "not run"
	case t.Failure != "":
		return "failed: " + abbreviate(firstLine(strings.TrimSpace(t.Failure)), 240)
	case t.Result == report.Skipped:
		return "skipped: " + abbreviate(t.SkipReason, 240)
	}
	var observed, absent []string
	for _, c := range t.DeviationChecks {
		at := fmt.Sprintf("%s (%s)", c.Endpoint, c.Version)
		if c.Seen == report.DeviationObserved {
			observed = append(observed, at)
		} else {
			absent = append(absent, at)
		}
	}
	switch {
	case t.KnownDeviation != "" && len(observed) > 0:
		return "passed with its known upstream deviation, observed at " + strings.Join(observed, ", ")
	case t.KnownDeviation != "":
		return "passed with its known upstream deviation"
	case len(absent) > 0:
		return "passed, its known upstream deviation looked for and absent at " + strings.Join(absent, ", ")
	}
	return string(t.Result)
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// servedDifferences compares what each endpoint served with its namesake in the other pair.
func servedDifferences(real, emulated []report.Endpoint) []ServedDifference {
	var out []ServedDifference
	for _, r := range real {
		i := slices.IndexFunc(emulated, func(e report.Endpoint) bool { return e.Name == r.Name })
		if i < 0 {
			continue
		}
		d := ServedDifference{Endpoint: r.Name, OnlyReal: minus(r.Served, emulated[i].Served), OnlyEmulated: minus(emulated[i].Served, r.Served)}
		if len(d.OnlyReal)+len(d.OnlyEmulated) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// skewDifferences are the GVRs in one pair's skew and not the other's.
func skewDifferences(real, emulated []report.Endpoint) []SkewDifference {
	rs, es := skewOf(real), skewOf(emulated)
	var out []SkewDifference
	for _, gvr := range slices.Sorted(maps.Keys(rs)) {
		if _, ok := es[gvr]; !ok {
			out = append(out, SkewDifference{GVR: gvr, Pair: RealPair, ServedBy: rs[gvr]})
		}
	}
	for _, gvr := range slices.Sorted(maps.Keys(es)) {
		if _, ok := rs[gvr]; !ok {
			out = append(out, SkewDifference{GVR: gvr, Pair: EmulatedPair, ServedBy: es[gvr]})
		}
	}
	return out
}

// skewOf maps each GVR some endpoints serve and others do not to the endpoints serving it.
func skewOf(eps []report.Endpoint) map[string][]string {
	by := map[string][]string{}
	for _, e := range eps {
		for _, g := range e.Served {
			by[g] = append(by[g], e.Name)
		}
	}
	for g, servers := range by {
		if len(servers) == len(eps) {
			delete(by, g)
		}
	}
	return by
}

// minus is what a has and b has not, both sorted.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, found := slices.BinarySearch(b, x); !found {
			out = append(out, x)
		}
	}
	return out
}

// describePair names a pair's servers: "v1.35.4 + v1.36.3", "v1.36.3 as 1.35 + v1.36.3".
func describePair(eps []report.Endpoint) string {
	var parts []string
	for _, e := range eps {
		if e.EmulationVersion != "" {
			parts = append(parts, e.Version+" as "+e.EmulationVersion)
			continue
		}
		parts = append(parts, e.Version)
	}
	return strings.Join(parts, " + ")
}

// Summary is the comparison's verdict in one line.
func (e Emulation) Summary() string {
	differ := e.Differing()
	if len(differ) == 0 {
		return fmt.Sprintf("emulation predicted the real skew: all %d tests agree (real %s: %s; emulated %s: %s)",
			len(e.Rows), describePair(e.Real), e.RealVerdict, describePair(e.Emulated), e.EmulatedVerdict)
	}
	return fmt.Sprintf("emulation did not predict the real skew: %d of %d tests differ (%s); real %s: %s, emulated %s: %s",
		len(differ), len(e.Rows), strings.Join(differ, ", "), describePair(e.Real), e.RealVerdict, describePair(e.Emulated), e.EmulatedVerdict)
}

// Markdown renders the comparison as a page a person reads.
func (e Emulation) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Emulated skew against real skew, %s\n\n", e.Date.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- real pair: %s\n- emulated pair: %s\n\n", describePair(e.Real), describePair(e.Emulated))
	b.WriteString("| test | real | emulated | agree | why they differ |\n|---|---|---|---|---|\n")
	for _, r := range e.Rows {
		agree := "yes"
		if !r.Agree {
			agree = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, withFigures(r.Real, r.Measurements[RealPair]),
			withFigures(r.Emulated, r.Measurements[EmulatedPair]), agree, strings.ReplaceAll(r.Why, "|", "\\|"))
	}
	b.WriteString("\n## What the servers served\n\n")
	if len(e.Served) == 0 && len(e.Skew) == 0 {
		b.WriteString("Every endpoint served the same GVRs as its namesake in the other pair.\n")
	}
	for _, d := range e.Served {
		fmt.Fprintf(&b, "- %s: only in the real pair: %s; only in the emulated pair: %s\n", d.Endpoint, listOrNone(d.OnlyReal), listOrNone(d.OnlyEmulated))
	}
	if len(e.Skew) > 0 {
		b.WriteString("\nIn one pair's skew only (served by some of its servers, not all):\n\n")
		for _, s := range e.Skew {
			fmt.Fprintf(&b, "- %s: %s pair, served by %s\n", s.GVR, s.Pair, strings.Join(s.ServedBy, ", "))
		}
	}
	b.WriteString("\n" + e.Summary() + "\n")
	return b.String()
}

func withFigures(result string, figures map[string]float64) string {
	if len(figures) == 0 {
		return result
	}
	var ms []string
	for _, k := range slices.Sorted(maps.Keys(figures)) {
		ms = append(ms, fmt.Sprintf("%s=%.3f", k, figures[k]))
	}
	return result + " (" + strings.Join(ms, ", ") + ")"
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
