package matrix

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skewcheck/skewcheck/framework/report"
)

// results is a run's report with the given result per test ID.
func results(profile string, byID map[string]report.Result, skipReason string) *report.Conformance {
	c := &report.Conformance{}
	for _, id := range []string{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6", "G-1"} {
		if r, ok := byID[id]; ok {
			t := report.Test{ID: id, Profile: profile, Result: r}
			switch r {
			case report.Skipped:
				t.SkipReason = skipReason
			case report.Failed:
				t.Failure = id + " failed as the flaw makes it\nmore"
			}
			c.Tests = append(c.Tests, t)
		}
	}
	return c
}

func matrixTests() []MutationTest {
	var out []MutationTest
	for _, id := range []string{"T-1", "T-2", "T-3", "T-4", "T-5", "T-6"} {
		out = append(out, MutationTest{ID: id, Profile: "p"})
	}
	return append(out, MutationTest{ID: "G-1", Profile: "g"})
}

// A family "a" of profile p: its baseline and three mutants; a family "b" of profile g
// whose mutant's run left no report.
func matrix() *Mutation {
	base := map[string]report.Result{"T-1": report.Passed, "T-2": report.Passed, "T-3": report.Failed, "T-4": report.Skipped, "T-5": report.Passed, "T-6": report.Passed}
	return &Mutation{Runs: []MutationRun{
		{Name: "a", Family: "a", Profiles: []string{"p"}, Report: results("p", base, "needs a dataplane")},
		{Name: "a/m1", Family: "a", Mutant: "m1", Profiles: []string{"p"},
			Report: results("p", map[string]report.Result{"T-1": report.Failed, "T-2": report.Passed, "T-3": report.Failed, "T-4": report.Skipped, "T-5": report.Passed, "T-6": report.Passed}, "needs a dataplane")},
		{Name: "a/m2", Family: "a", Mutant: "m2", Profiles: []string{"p"},
			Report: results("p", map[string]report.Result{"T-1": report.Failed, "T-2": report.Skipped, "T-3": report.Failed, "T-4": report.Failed, "T-5": report.Passed, "T-6": report.Failed}, "x")},
		{Name: "a/m3", Family: "a", Mutant: "m3", Profiles: []string{"p"},
			Report: results("p", map[string]report.Result{"T-1": report.Passed, "T-2": report.Passed, "T-3": report.Failed, "T-4": report.Skipped, "T-5": report.Passed, "T-6": report.Passed}, "needs a dataplane")},
		{Name: "b", Family: "b", Profiles: []string{"g"}, Report: results("g", map[string]report.Result{"G-1": report.Passed}, "")},
		{Name: "b/m4", Family: "b", Mutant: "m4", Profiles: []string{"g"}, Error: "exit status 1: cluster did not start"},
	}}
}

// claims are the fixture mutants' claims: each claims what it fails for its flaw.
var claims = Catches{"a/m1": {"T-1": ClaimText("as the flaw")}, "a/m2": {"T-1": ClaimText("as the flaw"), "T-6": ClaimText("as the flaw")}, "b/m4": {"G-1": ClaimText("x")}}

func TestMutationCellsAndKills(t *testing.T) {
	m := matrix()
	m.Build(matrixTests(), MutationReasons{}, claims)
	row := func(id string) MutationTest {
		for _, tc := range m.Tests {
			if tc.ID == id {
				return tc
			}
		}
		t.Fatalf("no row %s", id)
		return MutationTest{}
	}
	cases := []struct {
		id       string
		cells    map[string]Cell
		failedBy []string
		reason   string
	}{
		{"T-1", map[string]Cell{"a": CellPassed, "a/m1": CellFailed, "a/m2": CellFailed, "b": CellNotRun, "b/m4": CellNotRun}, []string{"a/m1", "a/m2"}, ""},
		// Failing against the baseline, no mutant's failure counts.
		{"T-3", map[string]Cell{"a": CellFailed, "a/m1": CellFailed}, nil, "fails against the unmutated reference (a) too"},
		// Skipped against the baseline: a mutant that fails it still does not count.
		{"T-4", map[string]Cell{"a": CellSkipped, "a/m2": CellFailed}, nil, "skipped against the unmutated reference: needs a dataplane"},
		{"T-5", map[string]Cell{"a/m3": CellPassed}, nil, "no mutant makes it fail"},
		{"T-6", nil, []string{"a/m2"}, ""},
		{"G-1", map[string]Cell{"b": CellPassed, "b/m4": CellNotRun, "a/m1": CellNotRun}, nil, "no mutant makes it fail"},
	}
	for _, tc := range cases {
		r := row(tc.id)
		for run, want := range tc.cells {
			if r.Cells[run] != want {
				t.Errorf("%s in %s: %q, want %q", tc.id, run, r.Cells[run], want)
			}
		}
		if !slices.Equal(r.FailedBy, tc.failedBy) {
			t.Errorf("%s failed by %v, want %v", tc.id, r.FailedBy, tc.failedBy)
		}
		if !strings.Contains(r.Reason, tc.reason) || (tc.reason == "") != (r.Reason == "") || r.Explained {
			t.Errorf("%s reason %q (explained %v), want one containing %q from the runs", tc.id, r.Reason, r.Explained, tc.reason)
		}
	}
	caught := map[string][]string{}
	for _, r := range m.Runs {
		caught[r.Name] = r.CaughtBy
	}
	if !slices.Equal(caught["a/m1"], []string{"T-1"}) || !slices.Equal(caught["a/m2"], []string{"T-1", "T-6"}) || caught["a/m3"] != nil || caught["b/m4"] != nil {
		t.Errorf("caught by: %v", caught)
	}
	if got, want := m.Totals(), (MutationTotals{Tests: 7, Mutants: 4, TestsFailed: 2, MutantsCaught: 2}); got != want {
		t.Errorf("totals %+v, want %+v", got, want)
	}
}

// Without reasons, every survivor and uncaught mutant is a problem, as are the baseline's
// failure and the run without a report; the table's reasons explain survivors, and a
// reason for what is caught now is stale.
func TestMutationProblemsAndReasons(t *testing.T) {
	m := matrix()
	m.Build(matrixTests(), MutationReasons{}, claims)
	problems := strings.Join(m.Problems(), "\n")
	for _, want := range []string{
		"run b/m4 left no report: exit status 1",
		"test T-3 fails against the unmutated reference a",
		"test T-4: no mutant fails it (skipped against the unmutated reference: needs a dataplane)",
		"test T-5: no mutant fails it (no mutant makes it fail)",
		"test G-1: no mutant fails it",
		"mutant a/m3: no test catches it (every test it runs passes or skips",
		"mutant b/m4: no test catches it (its run left no report)",
		"mutant a/m3 claims no test",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if strings.Contains(problems, "test T-3: no mutant") || strings.Contains(problems, "T-1") || strings.Contains(problems, "a/m1") {
		t.Errorf("a baseline failure is one problem, and what is caught is none:\n%s", problems)
	}

	m.Build(matrixTests(), MutationReasons{
		Tests:   map[string]string{"T-4": "needs a dataplane the matrix lacks", "T-5": "measurement only", "G-1": "needs a fault the mutants lack", "T-1": "was never failed"},
		Mutants: map[string]string{"a/m3": "equivalent: changes nothing the profile promises", "b/m4": "x", "a/m1": "never caught"},
	}, claims)
	problems = strings.Join(m.Problems(), "\n")
	for _, gone := range []string{"T-4", "T-5", "G-1: no mutant", "mutant a/m3"} {
		if strings.Contains(problems, gone) {
			t.Errorf("%s is explained by the table, yet a problem:\n%s", gone, problems)
		}
	}
	for _, want := range []string{
		`test T-1: the reasons table says "was never failed", but a/m1, a/m2 fails it`,
		`mutant a/m1: the reasons table says "never caught", but T-1 catches it`,
		"run b/m4 left no report",
		"test T-3 fails against the unmutated reference",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	md := m.Markdown()
	for _, want := range []string{"| 7 | 4 | 2 | 2 |", "| T-5 | p | measurement only | reasons table |",
		"| a/m3 | equivalent: changes nothing the profile promises | reasons table |", "| T-1 | pass | **FAIL** | **FAIL** | pass | · | · |",
		"| T-3 | fail | fail | fail | fail | · | · |", "| 6 | b/m4 | g | no report: exit status 1: cluster did not start |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// With a focus, a test no run ran is not in the matrix: it was not asked for. The reports
// list such a test as skipped, not selected.
func TestMutationFocusLeavesOutWhatNoRunRan(t *testing.T) {
	m := &Mutation{Focus: `\[T-1\]`, Runs: []MutationRun{
		{Name: "a", Family: "a", Profiles: []string{"p"}, Report: results("p", map[string]report.Result{"T-1": report.Passed, "T-2": report.Skipped}, report.NotSelected)},
		{Name: "a/m1", Family: "a", Mutant: "m1", Profiles: []string{"p"}, Report: results("p", map[string]report.Result{"T-1": report.Failed, "T-2": report.Skipped}, report.NotSelected)},
	}}
	m.Build(matrixTests(), MutationReasons{}, claims)
	if len(m.Tests) != 1 || m.Tests[0].ID != "T-1" || len(m.Problems()) != 0 {
		t.Errorf("tests %+v, problems %v; want T-1 alone, failed by a/m1, and no problem", m.Tests, m.Problems())
	}
}

// A baseline that fails is the first thing every output of the matrix says: the closing
// line starts with it, mutation.md puts it under the title, the nightly page above all.
func TestMutationBaselineFailureLeads(t *testing.T) {
	m := matrix()
	m.Build(matrixTests(), MutationReasons{}, claims)
	want := "BASELINE FAILS: a, the reference as shipped, fails T-3"
	if b := m.BaselineFailures(); len(b) != 1 || !strings.HasPrefix(b[0], want) {
		t.Errorf("baseline failures %q, want one line starting %q", b, want)
	}
	if s := m.Summary(); !strings.HasPrefix(s, want) {
		t.Errorf("summary %q does not start with the failing baseline", s)
	}
	if md := m.Markdown(); !strings.HasPrefix(md, "# Mutation matrix\n\n**"+want) {
		t.Errorf("mutation.md does not open with the failing baseline:\n%.300s", md)
	}
	n := &Nightly{Mutations: []NightlyMutation{{Family: "b", Dir: "mutation/b", Summary: m.Summary(), BaselineFailures: m.BaselineFailures()}}}
	page, err := n.HTML()
	if err != nil {
		t.Fatal(err)
	}
	h1 := strings.Index(string(page), "</h1>")
	if i := strings.Index(string(page), want); i < 0 || i > h1+200 {
		t.Errorf("the nightly page does not show the failing baseline right under its title (at %d, title ends at %d)", i, h1)
	}

	healthy := &Mutation{Runs: []MutationRun{{Name: "b", Family: "b", Profiles: []string{"g"}, Report: results("g", map[string]report.Result{"G-1": report.Passed}, "")}}}
	healthy.Build(matrixTests(), MutationReasons{}, claims)
	if b := healthy.BaselineFailures(); b != nil || strings.Contains(healthy.Summary(), "BASELINE") {
		t.Errorf("a passing baseline reported as failing: %q", b)
	}
}

// A failure counts only where the mutant claims it, for the claim's reason: an unclaimed
// failure, or one for another reason, is incidental and counts for nothing; a claim that
// does not hold (the test passed, or failed saying something else) is a problem.
func TestMutationCountsOnlyClaims(t *testing.T) {
	m := matrix()
	m.Build(matrixTests(), MutationReasons{}, Catches{
		"a/m1": {"T-1": ClaimText("some other reason"), "T-2": ClaimText("as the flaw")},
		"a/m2": {"T-6": ClaimText("as the flaw")},
		"a/m3": {"T-5": ClaimText("x"), "G-1": ClaimText("y")}, // G-1 is no profile its run has
	})
	row := map[string]MutationTest{}
	for _, tc := range m.Tests {
		row[tc.ID] = tc
	}
	if got := row["T-1"]; got.FailedBy != nil || len(got.Incidental) != 2 || got.Incidental[0].Mutant != "a/m1" || got.Incidental[0].Failure != "T-1 failed as the flaw makes it" {
		t.Errorf("T-1: failed by %v, incidental %+v; want no catch, and a/m1 and a/m2 incidental with the failure's first line", got.FailedBy, got.Incidental)
	}
	if got := row["T-6"]; !slices.Equal(got.FailedBy, []string{"a/m2"}) || got.Incidental != nil {
		t.Errorf("T-6: failed by %v, incidental %v; want a/m2, as it claims", got.FailedBy, got.Incidental)
	}
	problems := strings.Join(m.Problems(), "\n")
	for _, want := range []string{
		`mutant a/m1 must fail T-1 at "some other reason" (text only); it failed saying "T-1 failed as the flaw makes it"`,
		`mutant a/m1 must fail T-2 at "as the flaw" (text only); it passed`,
		`mutant a/m3 must fail T-5 at "x" (text only); it passed`,
		`mutant a/m3 must fail G-1 at "y" (text only); it was not run by its run`,
		"mutant a/m1: no test catches it",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if md := m.Markdown(); !strings.Contains(md, "| T-1 | a/m1 | T-1 failed as the flaw makes it |") {
		t.Errorf("mutation.md does not list the incidental failure:\n%s", md)
	}
}

// A failure's text is clipped for mutation.md at a character, never inside one: a
// split UTF-8 sequence renders as a replacement character.
func TestClipKeepsCharactersWhole(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"four", "four"},
		{"abcdef", "abcd…"},
		{"ab→cd", "ab…"},  // the arrow's 3 bytes start at 2: cut before it
		{"abc→d", "abc…"}, // the cut at 4 falls inside the arrow: back to 3
		{"→→→→", "→…"},    // 3 is the start of the second arrow
	} {
		if got := clip(c.in, 4); got != c.want || !utf8.ValidString(got) {
			t.Errorf("clip(%q, 4) = %q, want %q", c.in, got, c.want)
		}
	}
}

// With a focus, a claimed test no run ran is never a silence: outside the focus asked for,
// the matrix says it was not checked (OutsideFocus, the closing line, mutation.md); inside
// it, the claim is a problem.
func TestMutationFocusNeverDropsAClaimSilently(t *testing.T) {
	runs := func() []MutationRun {
		return []MutationRun{
			{Name: "a", Family: "a", Profiles: []string{"p"}, Report: results("p", map[string]report.Result{"T-1": report.Passed, "T-2": report.Skipped}, report.NotSelected)},
			{Name: "a/m1", Family: "a", Mutant: "m1", Profiles: []string{"p"}, Report: results("p", map[string]report.Result{"T-1": report.Failed, "T-2": report.Skipped}, report.NotSelected)},
		}
	}
	claimsT2 := Catches{"a/m1": {"T-1": ClaimText("as the flaw"), "T-2": ClaimText("as the flaw")}}

	outside := &Mutation{Focus: `\[T-1\]`, Runs: runs()}
	outside.Build(matrixTests(), MutationReasons{}, claimsT2)
	if len(outside.Problems()) != 0 || !slices.Equal(outside.OutsideFocus, []string{"a/m1 claims T-2"}) {
		t.Errorf("focus on T-1: problems %v, outside the focus %q; want none, and a/m1's claim on T-2 named as outside it", outside.Problems(), outside.OutsideFocus)
	}
	if s := outside.Summary(); !strings.Contains(s, "1 claims outside the focus") {
		t.Errorf("the closing line does not say a claim was left outside the focus: %s", s)
	}
	if md := outside.Markdown(); !strings.Contains(md, "## Claims outside the focus") || !strings.Contains(md, "- a/m1 claims T-2\n") {
		t.Errorf("mutation.md does not list the claim on T-2 as outside the focus:\n%s", md)
	}

	inside := &Mutation{Focus: `\[T-[12]\]`, Runs: runs()}
	inside.Build(matrixTests(), MutationReasons{}, claimsT2)
	problems := strings.Join(inside.Problems(), "\n")
	if !strings.Contains(problems, `mutant a/m1 must fail T-2 at "as the flaw" (text only); no run ran it`) || inside.OutsideFocus != nil {
		t.Errorf("focus on T-1 and T-2, T-2 run by none: problems\n%s\noutside the focus %q; want the claim on T-2 a problem", problems, inside.OutsideFocus)
	}
}
