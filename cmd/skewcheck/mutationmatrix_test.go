package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// oneMutantPerFamily is a fast mutant of each family, the test it claims, and the value
// its claim must observe there: the reference peer proxy that drops Impersonate-* headers
// on MVP-042 (impersonation through the proxy: 200 where the user gets 403), the reference
// gateway that sends upgrades as itself on GW-032 (the ungranted user's exec reaches the
// missing pod: 404, not 403), and the reference dataplane that closes the NodePort of a
// short-circuited Service on IPM-104 (a client outside the node is refused).
var oneMutantPerFamily = []struct{ mutant, test, observed string }{
	{"peerproxy/drop-impersonation", "MVP-042", "HTTP 200"},
	{"gateway/upgrade-as-itself", "GW-032", "HTTP 404"},
	{"ipmode/reference-closing-nodeport", "IPM-104", "connect: connection refused"},
}

// TestMutationMatrixOneMutant runs the matrix for real through the CLI for one fast mutant
// of each family, each on the one test it claims (oneMutantPerFamily). Each test must pass
// against its family's baseline and fail against the mutant at the claimed assertion,
// observing the claimed value, so the matrix counts it caught with that evidence, exits 0
// and writes both files. The focus leaves each baseline the mutant's own test, so no
// baseline of a mutant's focus is needed (TestMutationBaselinesRunEveryMutantsFocus and
// framework/matrix's tests cover those). SKEWCHECK_SKIP_NFT=1 leaves out the ipmode
// family, whose dataplanes need nftables.
func TestMutationMatrixOneMutant(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	cases := oneMutantPerFamily
	if os.Getenv("SKEWCHECK_SKIP_NFT") == "1" {
		cases = cases[:2]
		t.Log("SKEWCHECK_SKIP_NFT=1: the ipmode family left out")
	}
	var mutants, tests []string
	for _, c := range cases {
		mutants = append(mutants, regexp.QuoteMeta(c.mutant))
		tests = append(tests, c.test)
	}
	dir := t.TempDir()
	began := time.Now()
	out, code := run(t, t.TempDir(), "mutation", "--versions", oldV+","+newV, "--mutants", "^("+strings.Join(mutants, "|")+")$",
		"--focus", `\[(`+strings.Join(tests, "|")+`)\]`, "--seed", "1", "--report-dir", dir)
	t.Logf("the matrix of %d mutants took %v", len(cases), time.Since(began).Round(time.Second))
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, tail(out, 40))
	}
	b, err := os.ReadFile(filepath.Join(dir, matrix.MutationJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var m matrix.Mutation
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 2*len(cases) {
		t.Errorf("%d runs, want a baseline and a mutant per family (the baseline runs the mutant's test alone, so no baseline of its focus)", len(m.Runs))
	}
	md, err := os.ReadFile(filepath.Join(dir, matrix.MutationMarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]matrix.MutationTest{}
	for _, r := range m.Tests {
		row[r.ID] = r
	}
	if len(m.Tests) != len(cases) {
		t.Errorf("matrix tests %v, want %v", slices.Collect(maps.Keys(row)), tests)
	}
	for _, c := range cases {
		r, family := row[c.test], strings.Split(c.mutant, "/")[0]
		if r.Cells[family] != matrix.CellPassed || r.Cells[c.mutant] != matrix.CellFailed || !slices.Equal(r.FailedBy, []string{c.mutant}) {
			t.Errorf("%s: cells %v, failed by %v; want passed against %s's baseline, failed against %s", c.test, r.Cells, r.FailedBy, family, c.mutant)
		}
		if len(r.Evidence) != 1 || r.Evidence[0].Mutant != c.mutant || r.Evidence[0].Observed != c.observed || r.Evidence[0].TextOnly {
			t.Errorf("%s: evidence %+v, want %s's catch observing %q", c.test, r.Evidence, c.mutant, c.observed)
		}
		if !strings.Contains(string(md), "| "+c.test+" | "+c.mutant+" | ") || !strings.Contains(string(md), " | "+c.observed+" | ") {
			t.Errorf("mutation.md's catches lack %s by %s observing %s", c.test, c.mutant, c.observed)
		}
		for _, run := range []string{family + "/baseline", filepath.Join(family, strings.Split(c.mutant, "/")[1])} {
			if _, err := os.Stat(filepath.Join(dir, run, report.JSONFile)); err != nil {
				t.Errorf("the run's own report: %v", err)
			}
		}
	}
	if n, want := m.Totals(), len(cases); n != (matrix.MutationTotals{Tests: want, Mutants: want, TestsFailed: want, MutantsCaught: want}) {
		t.Errorf("totals %+v", n)
	}
	if !strings.Contains(string(md), "| MVP-042 | pass | **FAIL** |") {
		t.Errorf("mutation.md:\n%s", md)
	}
	if want := fmt.Sprintf("%d tests failed by at least one mutant, %d mutants caught", len(cases), len(cases)); !strings.Contains(out, want) {
		t.Errorf("no closing line:\n%s", tail(out, 5))
	}
	// The mutant's report replaced by the baseline's (as a directory of another matrix
	// would hold it): --rebuild refuses it as another run's, and the catch is gone.
	base, err := os.ReadFile(filepath.Join(dir, "peerproxy/baseline", report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peerproxy/drop-impersonation", report.JSONFile), base, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = run(t, t.TempDir(), "mutation", "--versions", oldV+","+newV, "--mutants", "^("+strings.Join(mutants, "|")+")$",
		"--focus", `\[(`+strings.Join(tests, "|")+`)\]`, "--rebuild", "--report-dir", dir)
	if code != 1 || !strings.Contains(out, `its report ran variant "", not "drop-impersonation": it is another run's`) {
		t.Errorf("--rebuild over another run's report: exit %d, want 1 naming it:\n%s", code, tail(out, 10))
	}
}
