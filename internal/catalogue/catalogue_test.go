package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/suites"
)

// page is docs/tests.md, seen from this package's directory (where go test runs).
const page = "../../docs/tests.md"

// TestCatalogueIsCurrent fails while docs/tests.md says something other than the suites'
// tables: a test added, changed or retired without `make docs`.
func TestCatalogueIsCurrent(t *testing.T) {
	want := render(suites.All(), suites.DefaultProfiles)
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("docs/tests.md: %v: run make docs", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("docs/tests.md is not current (line %d says\n\t%q\nwhere the suites' tables say\n\t%q): run make docs", i+1, gl, wl)
		}
	}
}

// TestRender checks the page's shape on made-up tests: profiles in the order their tests
// come, the default marked, every column filled, a pipe in a description kept inside its cell.
func TestRender(t *testing.T) {
	tests := []framework.Test{
		{ID: "B-001", Profile: "beta", Since: "1.35", Description: "first | second",
			Features:  []framework.Feature{framework.FeatureSkew, framework.FeatureNodeControl},
			Deviation: &framework.Deviation{Since: "1.33", Until: "1.34", Summary: "drops the peer"}},
		{ID: "A-001", Profile: "alpha", Since: "1.28", Until: "1.36", Description: "spread\n  over lines"},
		{ID: "B-002", Profile: "beta", Description: "open both ways",
			SpecVsCode: []framework.SpecVsCode{{Spec: "KEP-9", Section: "Design, item 2", SpecSays: "503",
				CodeDoes: "404 | local", CodeRef: "x/handler.go:10", CodeVersions: "1.36.3"}}},
	}
	got := string(render(tests, []string{"alpha"}))
	for _, want := range []string{
		"3 tests in 2 profiles",
		"| [beta](#beta) | 2 |  |\n| [alpha](#alpha) | 1 | yes |",
		"| B-001 | first \\| second | Skew, NodeControl | 1.35 | open | 1.33 to 1.34: drops the peer |",
		"| A-001 | spread over lines |  | 1.28 | 1.36 |  |",
		"| B-002 | open both ways |  | open | open |  |",
		"\n## KEP says / code does\n",
		"| B-002 | KEP-9, Design, item 2 | 503 | 404 \\| local | x/handler.go:10 (read in 1.36.3) |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}
	if strings.Index(got, "## beta") > strings.Index(got, "## alpha") {
		t.Errorf("profiles out of the tests' order:\n%s", got)
	}
	if n := strings.Count(got, "| KEP-9"); n != 1 {
		t.Errorf("the closing section has %d rows, want 1 (only B-002 has a point):\n%s", n, got)
	}
	if plain := string(render(tests[:2], nil)); strings.Contains(plain, "## KEP says / code does") {
		t.Errorf("a catalogue without points has the section:\n%s", plain)
	}
}

// TestFaultTableIsCurrent fails while docs/chaos.md's table of fault kinds says something
// other than the fault registry: a kind added, changed or retired without `make docs`.
func TestFaultTableIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../docs/chaos.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := withFaults(got, faults.Kinds())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs/chaos.md's fault table is not the registry's: run make docs")
	}
	if _, err := withFaults([]byte("no markers"), faults.Kinds()); err == nil {
		t.Error("a page without the markers must be refused")
	}
}

// TestClaimsTableIsCurrent fails while docs/mutation.md's table of claims says something
// other than the claims (suites.MutantCatches): a claim added, changed or given a value
// without `make docs`.
func TestClaimsTableIsCurrent(t *testing.T) {
	got, err := os.ReadFile("../../docs/mutation.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := withClaims(got, suites.MutantCatches)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs/mutation.md's claims table is not the claims': run make docs")
	}
	page, err := withClaims([]byte(claimsBegin+claimsEnd), matrix.Catches{"a/m": {"T-2": matrix.ClaimStatus("x|y", 200), "T-1": matrix.ClaimText("z")}})
	for _, want := range []string{"2 claims of 1 mutants: 1 name the value the assertion must observe, 1 are text only",
		"| T-1 | a/m | `z` | text only |\n| T-2 | a/m | `x\\|y` | `HTTP 200` |"} {
		if err != nil || !strings.Contains(string(page), want) {
			t.Errorf("claims table (%v) lacks %q:\n%s", err, want, page)
		}
	}
	if _, err := withClaims([]byte("no markers"), suites.MutantCatches); err == nil {
		t.Error("a page without the markers must be refused")
	}
}
