package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skewcheck/skewcheck/framework/report"
)

// What `skewcheck mutation` writes in its report directory.
const (
	MutationJSONFile     = "mutation.json"
	MutationMarkdownFile = "mutation.md"
)

// Cell is one test's result in one run of the mutation matrix.
type Cell string

const (
	CellFailed  Cell = "failed"
	CellPassed  Cell = "passed"
	CellSkipped Cell = "skipped"
	// CellNotRun: the run's profiles do not hold the test, --focus left it out (the report
	// has it skipped as not selected), or the run left no report.
	CellNotRun Cell = "not run"
)

// MutationRun is one conformance run of the matrix: a reference as shipped (its family's
// baseline) or one of its deliberately wrong variants (a mutant).
type MutationRun struct {
	// Name is "<family>/<mutant>", or the family alone for its baseline.
	Name     string   `json:"name"`
	Family   string   `json:"family"`
	Mutant   string   `json:"mutant,omitempty"`
	Profiles []string `json:"profiles"`
	// Args are the `skewcheck conformance` flags of the run, to replay it alone.
	Args []string `json:"args"`
	// BaselineFor, on a baseline, names the mutants whose focus (their claimed tests) it
	// runs: the reference as shipped must pass what each mutant runs, as the mutant runs
	// it, or a failure the focused configuration itself causes would count as a catch.
	// Empty on the family's baseline, which runs every test.
	BaselineFor []string `json:"baselineFor,omitempty"`
	// Dir holds the run's conformance report, relative to the matrix's directory.
	Dir     string  `json:"dir"`
	Seconds float64 `json:"durationSeconds"`
	// Error says why the run left no report.
	Error  string              `json:"error,omitempty"`
	Report *report.Conformance `json:"-"`
	// CaughtBy lists the tests the mutant fails that pass against its baseline.
	CaughtBy []string `json:"caughtBy,omitempty"`
	// Reason says why no test catches the mutant (a mutant only, when CaughtBy is
	// empty); Explained is true when it comes from the reasons table, not from the run.
	Reason    string `json:"reason,omitempty"`
	Explained bool   `json:"explained,omitempty"`
}

// Baseline reports whether the run is its family's reference as shipped: the family's
// baseline, or one with mutants' focus (Focused).
func (r *MutationRun) Baseline() bool { return r.Mutant == "" }

// Focused reports whether the run is the reference as shipped run with the focus of the
// mutants BaselineFor names, not the family's baseline of every test.
func (r *MutationRun) Focused() bool { return r.Baseline() && len(r.BaselineFor) > 0 }

// MutationTest is one row of the matrix.
type MutationTest struct {
	ID          string `json:"id"`
	Profile     string `json:"profile"`
	Description string `json:"description"`
	// Cells hold the test's result in every run, by run name.
	Cells map[string]Cell `json:"cells"`
	// FailedBy lists the mutants that make it fail, as they claim to, while it passes
	// against their baseline.
	FailedBy []string `json:"failedBy,omitempty"`
	// Evidence is, for each mutant of FailedBy, what its catch matched: the claim's
	// assertion and the value the assertion observed (or that the claim is text only).
	Evidence []Evidence `json:"evidence,omitempty"`
	// Incidental lists the other mutants that make it fail while it passes against their
	// baseline: unclaimed, or for another reason than the claim's. They count for nothing.
	Incidental []Incidental `json:"incidental,omitempty"`
	// Reason says why no mutant fails it (when FailedBy is empty); Explained is true when
	// it comes from the reasons table.
	Reason    string `json:"reason,omitempty"`
	Explained bool   `json:"explained,omitempty"`
}

// MutationReasons say why a test no mutant can fail, or a mutant no test can catch, is
// so, by test ID and by mutant run name ("gateway/go-transport").
type MutationReasons struct {
	Tests   map[string]string
	Mutants map[string]string
}

// Catches are the flaws' claims: for each mutant (by run name, "gateway/go-transport"),
// the tests its flaw must make fail, each with the assertion and the value the flaw makes
// it observe (Claim). A mutant fails a test, and is caught by it, only where its claim
// holds: a failure it does not claim, or one for another reason, is incidental (noise
// near a bound, a state an earlier test left), shown but never counted, so the table is
// the same from run to run.
type Catches map[string]map[string]Claim

// Mutation is the matrix of tests against mutants: the evidence that every test can
// fail, and that every deliberate flaw of the references is caught.
type Mutation struct {
	Date     time.Time `json:"date"`
	Versions []string  `json:"versions"`
	Seed     int64     `json:"seed"`
	Focus    string    `json:"focus,omitempty"`
	// EveryTest: each mutant ran every test of its family's profiles, not only those it
	// claims (its run's --focus), so incidental failures could show.
	EveryTest bool           `json:"everyTest,omitempty"`
	Duration  float64        `json:"durationSeconds"`
	Runs      []MutationRun  `json:"runs"`
	Tests     []MutationTest `json:"tests"`
	// Stale lists reasons of the table given for a test a mutant now fails, or a mutant a
	// test now catches: the table must say only what is true.
	Stale []string `json:"stale,omitempty"`
	// Unmet lists the claims that did not hold: a test a mutant must fail that passed,
	// skipped, failed for another reason, or failed against the baseline too; and mutants
	// that claim nothing.
	Unmet []string `json:"unmet,omitempty"`
	// OutsideFocus lists the claims left unchecked because Focus leaves out their test
	// ("<mutant> claims <test>"): asked for, so no problem, but said wherever the matrix
	// concludes, so a focused matrix is never read as a whole one.
	OutsideFocus []string `json:"outsideFocus,omitempty"`
}

// Build fills the matrix from the runs' reports: a cell per test and run, and for each
// test the mutants that fail it, for each mutant the tests that catch it, with reasons
// where there are none. A mutant's failure counts only where its baseline passed (a test
// that fails the reference as shipped tells nothing about a flaw) and its claim holds:
// the test is claimed for the mutant and fails at the claim's assertion observing the
// claim's value (Claim.Match), and the baseline run with the mutant's focus, when the
// matrix has one, passed it too. Any other failure of a mutant is incidental. A claim
// that did not hold is a problem. With a focus, tests no run ran are left out, but never
// a claim silently: one the focus leaves out is listed in OutsideFocus, one it selects
// (no run ran it all the same) is a problem.
func (m *Mutation) Build(tests []MutationTest, reasons MutationReasons, claims Catches) {
	baselines := map[string]*MutationRun{} // by family: the baseline of every test
	focused := map[string]*MutationRun{}   // by mutant: the baseline of its focus
	for i := range m.Runs {
		switch r := &m.Runs[i]; {
		case r.Focused():
			for _, mutant := range r.BaselineFor {
				focused[mutant] = r
			}
		case r.Baseline():
			baselines[r.Family] = r
		}
	}
	m.Tests, m.Stale, m.Unmet, m.OutsideFocus = nil, nil, nil, nil
	for _, t := range tests {
		t.Cells, t.FailedBy, t.Evidence, t.Incidental = map[string]Cell{}, nil, nil, nil
		ran := false
		for _, r := range m.Runs {
			t.Cells[r.Name] = cellOf(&r, t.ID, t.Profile)
			ran = ran || t.Cells[r.Name] != CellNotRun
		}
		if m.Focus != "" && !ran {
			m.unranClaims(t, claims)
			continue
		}
		for _, r := range m.Runs {
			b := baselines[r.Family]
			if r.Baseline() || b == nil || r.Report == nil {
				continue
			}
			want, claimed := claims[r.Name][t.ID]
			got := failureOf(&r, t.ID)
			failed := t.Cells[r.Name] == CellFailed && t.Cells[b.Name] == CellPassed
			var ev Evidence
			why := "it is not claimed"
			if claimed && failed {
				ev, why = want.Match(got)
			}
			fb := focused[r.Name]
			switch {
			case failed && fb != nil && t.Cells[fb.Name] != CellPassed:
				// The reference as shipped, run as the mutant runs, did not pass: whatever
				// the focus itself does (a test alone, without what earlier ones left) is
				// the mutant's too, so its failure proves nothing of the flaw.
				t.Incidental = append(t.Incidental, Incidental{Mutant: r.Name, Failure: firstLine(got)})
				if claimed {
					m.Unmet = append(m.Unmet, fmt.Sprintf("mutant %s must fail %s at %s; it failed, but the baseline with its focus (%s) did not pass it (%s): a failure the focused run causes is no catch",
						r.Name, t.ID, want, fb.Name, t.Cells[fb.Name]))
				}
			case failed && claimed && why == "":
				ev.Mutant = r.Name
				t.FailedBy = append(t.FailedBy, r.Name)
				t.Evidence = append(t.Evidence, ev)
			case failed:
				t.Incidental = append(t.Incidental, Incidental{Mutant: r.Name, Failure: firstLine(got)})
				if claimed {
					m.Unmet = append(m.Unmet, fmt.Sprintf("mutant %s must fail %s at %s; %s", r.Name, t.ID, want, why))
				}
			case claimed:
				m.Unmet = append(m.Unmet, fmt.Sprintf("mutant %s must fail %s at %s; it %s", r.Name, t.ID, want, unmetBecause(t.Cells[r.Name], t.Cells[b.Name])))
			}
		}
		t.Reason, t.Explained = "", false
		why, known := reasons.Tests[t.ID]
		switch {
		case len(t.FailedBy) > 0 && known:
			m.Stale = append(m.Stale, fmt.Sprintf("test %s: the reasons table says %q, but %s fails it", t.ID, why, strings.Join(t.FailedBy, ", ")))
		case len(t.FailedBy) > 0:
		case known:
			t.Reason, t.Explained = why, true
		default:
			t.Reason = survivorCause(t, m.Runs, baselines)
		}
		m.Tests = append(m.Tests, t)
	}
	for i := range m.Runs {
		r := &m.Runs[i]
		r.CaughtBy, r.Reason, r.Explained = nil, "", false
		if r.Baseline() {
			continue
		}
		for _, t := range m.Tests {
			if slices.Contains(t.FailedBy, r.Name) {
				r.CaughtBy = append(r.CaughtBy, t.ID)
			}
		}
		why, known := reasons.Mutants[r.Name]
		if len(claims[r.Name]) == 0 && !known {
			m.Unmet = append(m.Unmet, fmt.Sprintf("mutant %s claims no test: say in the claims which tests its flaw must fail, and saying what", r.Name))
		}
		switch {
		case len(r.CaughtBy) > 0 && known:
			m.Stale = append(m.Stale, fmt.Sprintf("mutant %s: the reasons table says %q, but %s catches it", r.Name, why, strings.Join(r.CaughtBy, ", ")))
		case len(r.CaughtBy) > 0:
		case known:
			r.Reason, r.Explained = why, true
		case r.Error != "":
			r.Reason = "its run left no report"
		case baselines[r.Family] == nil || baselines[r.Family].Report == nil:
			r.Reason = "its family's baseline left no report, so no failure can count"
		default:
			r.Reason = "every test it runs passes or skips, or fails against the baseline too"
		}
	}
}

// unranClaims accounts for the claims, by the matrix's mutants, on a test no run ran with
// m.Focus set: outside the focus they are noted (OutsideFocus), inside it each is a
// problem, since a claim no run checked proves nothing.
func (m *Mutation) unranClaims(t MutationTest, claims Catches) {
	focus, err := regexp.Compile(m.Focus)
	selected := err != nil || focus.MatchString(t.Profile+" ["+t.ID+"] "+t.Description) // ginkgo's spec text
	for _, r := range m.Runs {
		want, claimed := claims[r.Name][t.ID]
		switch {
		case r.Baseline() || !claimed:
		case selected:
			m.Unmet = append(m.Unmet, fmt.Sprintf("mutant %s must fail %s at %s; no run ran it, though the focus %q selects it (their reports lack it, or skip it as not selected)",
				r.Name, t.ID, want, m.Focus))
		default:
			m.OutsideFocus = append(m.OutsideFocus, r.Name+" claims "+t.ID)
		}
	}
}

// Incidental is a failure of a test against a mutant that no claim of the mutant's covers.
type Incidental struct {
	Mutant  string `json:"mutant"`
	Failure string `json:"failure"`
}

// failureOf is the failure the run's report gives the test, "" when it did not fail.
func failureOf(r *MutationRun, id string) string {
	if t := selectedTest(r, id); t != nil && t.Result == report.Failed {
		return t.Failure
	}
	return ""
}

// selectedTest is the test's entry in the run's report, nil when the run did not select it.
func selectedTest(r *MutationRun, id string) *report.Test {
	if r.Report == nil {
		return nil
	}
	if t := testOf(r.Report, id); t != nil && t.SkipReason != report.NotSelected {
		return t
	}
	return nil
}

// unmetBecause says why a claimed test did not fail for the claim, from its cells.
func unmetBecause(mutant, baseline Cell) string {
	switch {
	case mutant == CellFailed && baseline != CellPassed:
		return "failed, but against the baseline too (" + string(baseline) + ")"
	case mutant == CellSkipped:
		return "skipped"
	case mutant == CellNotRun:
		// The baseline ran it (the matrix holds it), the mutant's run did not: a claim no
		// run checked proves nothing, so it is a problem, not a silence.
		return "was not run by its run (its focus or profiles left it out)"
	}
	return string(mutant)
}

// cellOf is the test's result in one run.
func cellOf(r *MutationRun, id, profile string) Cell {
	t := selectedTest(r, id)
	if t == nil || !slices.Contains(r.Profiles, profile) {
		return CellNotRun
	}
	switch t.Result {
	case report.Failed:
		return CellFailed
	case report.Passed:
		return CellPassed
	case report.Skipped:
		return CellSkipped
	}
	return CellNotRun
}

// survivorCause says, from the runs alone, why no mutant fails a test.
func survivorCause(t MutationTest, runs []MutationRun, baselines map[string]*MutationRun) string {
	var base *MutationRun
	for _, b := range baselines {
		if slices.Contains(b.Profiles, t.Profile) {
			base = b
		}
	}
	switch {
	case base == nil:
		return "no family of mutants runs profile " + t.Profile
	case base.Report == nil:
		return "the baseline " + base.Name + " left no report"
	}
	switch t.Cells[base.Name] {
	case CellFailed:
		return "fails against the unmutated reference (" + base.Name + ") too, so no mutant's failure counts"
	case CellSkipped:
		for _, rt := range base.Report.Tests {
			if rt.ID == t.ID {
				return "skipped against the unmutated reference: " + rt.SkipReason
			}
		}
	case CellNotRun:
		return "the unmutated reference's run (" + base.Name + ") did not run it"
	}
	return "no mutant makes it fail"
}

// Problems are what makes the matrix fail: runs that left no report, tests that fail
// the references as shipped, tests no mutant fails and mutants no test catches without a
// reason in the table, and stale reasons.
func (m *Mutation) Problems() []string {
	var out []string
	for _, r := range m.Runs {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("run %s left no report: %s", r.Name, r.Error))
		}
	}
	for _, t := range m.Tests {
		broken := false
		for _, r := range m.Runs {
			switch {
			case r.Focused() && t.Cells[r.Name] == CellFailed:
				out = append(out, fmt.Sprintf("test %s fails against the unmutated reference run with the focus of %s (%s, %s/): the focused run itself fails it, so no failure of it there is a catch",
					t.ID, strings.Join(r.BaselineFor, ", "), r.Name, r.Dir))
				broken = true
			case r.Baseline() && t.Cells[r.Name] == CellFailed:
				out = append(out, fmt.Sprintf("test %s fails against the unmutated reference %s (%s/)", t.ID, r.Name, r.Dir))
				broken = true
			}
		}
		if len(t.FailedBy) == 0 && !t.Explained && !broken {
			out = append(out, fmt.Sprintf("test %s: no mutant fails it (%s); ship a mutant that does, or give the reason in the table", t.ID, t.Reason))
		}
	}
	for _, r := range m.Runs {
		if !r.Baseline() && len(r.CaughtBy) == 0 && !r.Explained {
			out = append(out, fmt.Sprintf("mutant %s: no test catches it (%s); add a test that does, or give the reason in the table", r.Name, r.Reason))
		}
	}
	out = append(out, m.Unmet...)
	return append(out, m.Stale...)
}

// BaselineFailures says, one line per family whose reference as shipped fails tests,
// which: every catch those tests show is void while it does, so it leads every output of
// the matrix (its closing line, mutation.md, the nightly page), never a line among many.
func (m *Mutation) BaselineFailures() []string {
	var out []string
	for _, r := range m.Runs {
		if !r.Baseline() {
			continue
		}
		var failed []string
		for _, t := range m.Tests {
			if t.Cells[r.Name] == CellFailed {
				failed = append(failed, t.ID)
			}
		}
		if len(failed) > 0 {
			out = append(out, fmt.Sprintf("BASELINE FAILS: %s, the reference as shipped, fails %s (%s/): no catch of these tests counts until it passes",
				r.Name, strings.Join(failed, ", "), r.Dir))
		}
	}
	return out
}

// MutationTotals are the matrix's figures.
type MutationTotals struct {
	Tests, Mutants, TestsFailed, MutantsCaught int
}

func (m *Mutation) Totals() MutationTotals {
	var n MutationTotals
	n.Tests = len(m.Tests)
	for _, t := range m.Tests {
		if len(t.FailedBy) > 0 {
			n.TestsFailed++
		}
	}
	for _, r := range m.Runs {
		if !r.Baseline() {
			n.Mutants++
			if len(r.CaughtBy) > 0 {
				n.MutantsCaught++
			}
		}
	}
	return n
}

// Summary is the matrix's closing line.
func (m *Mutation) Summary() string {
	n := m.Totals()
	verdict := "no problems"
	if p := len(m.Problems()); p > 0 {
		verdict = fmt.Sprintf("%d problems", p)
	}
	line := fmt.Sprintf("mutation matrix %s: %d tests, %d mutants; %d tests failed by at least one mutant, %d mutants caught; %s",
		m.Date.Format("2006-01-02"), n.Tests, n.Mutants, n.TestsFailed, n.MutantsCaught, verdict)
	if len(m.OutsideFocus) > 0 {
		line += fmt.Sprintf("; %d claims outside the focus %q, not checked (mutation.md lists them)", len(m.OutsideFocus), m.Focus)
	}
	if b := m.BaselineFailures(); len(b) > 0 {
		line = strings.Join(b, "; ") + "; " + line
	}
	return line
}

// cellMark is a cell in the markdown table: a failure that counts is bold.
func cellMark(t MutationTest, run string) string {
	switch c := t.Cells[run]; {
	case slices.Contains(t.FailedBy, run):
		return "**FAIL**"
	case c == CellFailed:
		return "fail"
	case c == CellPassed:
		return "pass"
	case c == CellSkipped:
		return "skip"
	}
	return "·"
}

// Markdown is the matrix for people: the totals, what has no mutant or no test, then
// the whole table, runs numbered as columns.
func (m *Mutation) Markdown() string {
	var b strings.Builder
	n := m.Totals()
	b.WriteString("# Mutation matrix\n\n")
	for _, f := range m.BaselineFailures() {
		fmt.Fprintf(&b, "**%s**\n\n", f)
	}
	fmt.Fprintf(&b, "%s, versions %s, seed %d, %s", m.Date.Format("2006-01-02 15:04 MST"),
		strings.Join(m.Versions, ", "), m.Seed, (time.Duration(m.Duration) * time.Second).String())
	if m.Focus != "" {
		fmt.Fprintf(&b, ", focus `%s`", m.Focus)
	}
	if m.EveryTest {
		b.WriteString(", every test against every mutant")
	} else {
		b.WriteString(", each mutant against the tests it claims")
	}
	fmt.Fprintf(&b, "\n\n| tests | mutants | tests failed by at least one mutant | mutants caught |\n|---|---|---|---|\n| %d | %d | %d | %d |\n\n%s\n",
		n.Tests, n.Mutants, n.TestsFailed, n.MutantsCaught, m.Summary())
	if p := m.Problems(); len(p) > 0 {
		b.WriteString("\n## Problems\n\n")
		for _, s := range p {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	if len(m.OutsideFocus) > 0 {
		fmt.Fprintf(&b, "\n## Claims outside the focus\n\nThe focus `%s` leaves out these claimed tests: no run ran them, so these claims were not checked.\n\n", m.Focus)
		for _, c := range m.OutsideFocus {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	b.WriteString(catchesSection(m.Tests))
	b.WriteString("\n## Tests no mutant fails\n\n")
	none := true
	for _, t := range m.Tests {
		if len(t.FailedBy) == 0 {
			if none {
				b.WriteString("| test | profile | reason | from |\n|---|---|---|---|\n")
				none = false
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.ID, t.Profile, mdEscape(t.Reason), source(t.Explained))
		}
	}
	if none {
		b.WriteString("None: every test fails against at least one mutant.\n")
	}
	b.WriteString("\n## Mutants no test catches\n\n")
	none = true
	for _, r := range m.Runs {
		if !r.Baseline() && len(r.CaughtBy) == 0 {
			if none {
				b.WriteString("| mutant | reason | from |\n|---|---|---|\n")
				none = false
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Name, mdEscape(r.Reason), source(r.Explained))
		}
	}
	if none {
		b.WriteString("None: every mutant is caught by at least one test.\n")
	}
	b.WriteString("\n## Incidental failures\n\nFailures of a test against a mutant that no claim of the mutant covers (unclaimed, or another reason than the claim's): shown, never counted. A mutant runs only the tests it claims unless the matrix ran with --every-test.\n\n")
	none = true
	for _, t := range m.Tests {
		for _, i := range t.Incidental {
			if none {
				b.WriteString("| test | mutant | failure |\n|---|---|---|\n")
				none = false
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", t.ID, i.Mutant, mdEscape(clip(i.Failure, 200)))
		}
	}
	if none {
		b.WriteString("None.\n")
	}
	b.WriteString("\n## Runs\n\n| column | run | profiles | caught by | time | report |\n|---|---|---|---|---|---|\n")
	for i, r := range m.Runs {
		caught := strings.Join(r.CaughtBy, ", ")
		switch {
		case r.Focused():
			caught = "(baseline with the focus of " + strings.Join(r.BaselineFor, ", ") + ")"
		case r.Baseline():
			caught = "(baseline: the reference as shipped)"
		}
		if r.Error != "" {
			caught = "no report: " + mdEscape(firstLine(r.Error))
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | [%s](%s/) |\n", i+1, r.Name, strings.Join(r.Profiles, ", "), caught,
			(time.Duration(r.Seconds) * time.Second).String(), r.Dir, r.Dir)
	}
	b.WriteString("\n## Matrix\n\n**FAIL**: fails against the mutant and passes against its baseline (the mutant is caught); " +
		"fail: fails, but not against a mutant whose baseline it passes; pass, skip; ·: not run. " +
		"The baselines run with a mutant's focus are left out: their failures are listed under Problems.\n\n| test |")
	columns := 0
	for i, r := range m.Runs {
		if !r.Focused() {
			fmt.Fprintf(&b, " %d |", i+1)
			columns++
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", columns) + "\n")
	for _, t := range m.Tests {
		fmt.Fprintf(&b, "| %s |", t.ID)
		for _, r := range m.Runs {
			if !r.Focused() {
				fmt.Fprintf(&b, " %s |", cellMark(t, r.Name))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// catchesSection lists every catch with what it matched: the claim's assertion and the
// value that assertion observed, or "text only" where the claim names no value (any
// failure of the assertion counted), so a weaker catch is seen as one.
func catchesSection(tests []MutationTest) string {
	var b strings.Builder
	n, textOnly := 0, 0
	for _, t := range tests {
		for _, e := range t.Evidence {
			if n == 0 {
				b.WriteString("| test | mutant | assertion | observed | actual |\n|---|---|---|---|---|\n")
			}
			n++
			observed := e.Observed
			if e.TextOnly {
				observed, textOnly = "text only", textOnly+1
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", t.ID, e.Mutant, mdEscape(e.Assertion), mdEscape(observed), mdEscape(clip(e.Actual, 160)))
		}
	}
	head := fmt.Sprintf("\n## Catches\n\n%d catches: %d matched the value their assertion observed, %d text only (the claim names no value, so any failure of its assertion counted).\n\n", n, n-textOnly, textOnly)
	if n == 0 {
		return head
	}
	return head + b.String()
}

func source(explained bool) string {
	if explained {
		return "reasons table"
	}
	return "the runs (not explained)"
}

func mdEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// clip shortens s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// back to the start of a rune, so the cut never splits a character
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
