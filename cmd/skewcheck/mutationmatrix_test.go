package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestMutationMatrixOneMutant runs the matrix for real through the CLI for one mutant and
// one test: the reference peer proxy that drops Impersonate-* headers, against MVP-042
// (impersonation through the proxy). The test must pass against the baseline and fail
// against the mutant, so the matrix counts it caught, exits 0 and writes both files.
func TestMutationMatrixOneMutant(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	dir := t.TempDir()
	out, code := run(t, t.TempDir(), "mutation", "--versions", oldV+","+newV, "--mutants", "^peerproxy/drop-impersonation$",
		"--focus", `\[MVP-042\]`, "--seed", "1", "--report-dir", dir)
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
	if len(m.Tests) != 1 || m.Tests[0].ID != "MVP-042" {
		t.Fatalf("matrix tests %+v, want MVP-042 alone", m.Tests)
	}
	row := m.Tests[0]
	if row.Cells["peerproxy"] != matrix.CellPassed || row.Cells["peerproxy/drop-impersonation"] != matrix.CellFailed ||
		!slices.Equal(row.FailedBy, []string{"peerproxy/drop-impersonation"}) {
		t.Errorf("MVP-042: cells %v, failed by %v; want passed against the baseline, failed against the mutant", row.Cells, row.FailedBy)
	}
	if n := m.Totals(); n != (matrix.MutationTotals{Tests: 1, Mutants: 1, TestsFailed: 1, MutantsCaught: 1}) {
		t.Errorf("totals %+v", n)
	}
	md, err := os.ReadFile(filepath.Join(dir, matrix.MutationMarkdownFile))
	if err != nil || !strings.Contains(string(md), "| MVP-042 | pass | **FAIL** |") {
		t.Errorf("mutation.md (%v):\n%s", err, md)
	}
	for _, r := range []string{"peerproxy/baseline", "peerproxy/drop-impersonation"} {
		if _, err := os.Stat(filepath.Join(dir, r, report.JSONFile)); err != nil {
			t.Errorf("the run's own report: %v", err)
		}
	}
	if !strings.Contains(out, "1 tests failed by at least one mutant, 1 mutants caught") {
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
	out, code = run(t, t.TempDir(), "mutation", "--versions", oldV+","+newV, "--mutants", "^peerproxy/drop-impersonation$",
		"--focus", `\[MVP-042\]`, "--rebuild", "--report-dir", dir)
	if code != 1 || !strings.Contains(out, `its report ran variant "", not "drop-impersonation": it is another run's`) {
		t.Errorf("--rebuild over another run's report: exit %d, want 1 naming it:\n%s", code, tail(out, 10))
	}
}
