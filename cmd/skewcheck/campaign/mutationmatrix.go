package campaign

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// RebuildMutation runs nothing: it builds the matrix again from the reports a run of it
// left in o.ReportDir, keeping the date, seed and times its mutation.json recorded, and
// concludes as Mutation does. Each report counts only when it is its cell's as the plan
// says (foreignReport): variant, seed, versions and focus.
func RebuildMutation(o MutationOptions, out io.Writer) error {
	runs, err := PlanMutation(o)
	if err != nil {
		return err
	}
	// Nothing of o goes in before the unmarshal: it would write into o.Versions' array.
	m := &matrix.Mutation{Date: time.Now()}
	if b, err := os.ReadFile(filepath.Join(o.ReportDir, matrix.MutationJSONFile)); err == nil {
		if err := json.Unmarshal(b, m); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(o.ReportDir, matrix.MutationJSONFile), err)
		}
	}
	// The matrix rebuilt is the plan's: its versions, focus and seed, whatever the
	// mutation.json found says, so each report is held to what its cell ran.
	if o.Seed != 0 && m.Seed != 0 && o.Seed != m.Seed {
		return fmt.Errorf("--seed %d: the matrix in %s ran with seed %d; rebuild it with that seed, or without --seed", o.Seed, o.ReportDir, m.Seed)
	}
	m.Versions, m.Focus, m.EveryTest, m.Seed = o.Versions, o.Focus, o.EveryTest, cmp.Or(o.Seed, m.Seed)
	seconds := map[string]float64{}
	for _, r := range m.Runs {
		seconds[r.Name] = r.Seconds
	}
	m.Runs = runs
	for i := range m.Runs {
		r := &m.Runs[i]
		r.Seconds = seconds[r.Name]
		c, err := report.Read(filepath.Join(o.ReportDir, r.Dir, report.JSONFile))
		if err != nil {
			r.Error = fmt.Sprintf("no report to rebuild from: %v", err)
			continue
		}
		if why := foreignReport(r, c, m.Seed, o.Versions); why != "" {
			r.Error = why
			continue
		}
		// Without a seed given or recorded, the first report's is the matrix's: the
		// others must share it, one matrix being one seed.
		m.Seed = cmp.Or(m.Seed, c.Seed)
		r.Report = c
	}
	if err := writeMutation(o.ReportDir, m); err != nil {
		return err
	}
	return concludeMutation(out, o.ReportDir, m)
}

// concludeMutation prints the closing line; the matrix's problems make it Failed.
func concludeMutation(out io.Writer, dir string, m *matrix.Mutation) error {
	fmt.Fprintln(out, m.Summary())
	fmt.Fprintln(out, "matrix:", filepath.Join(dir, matrix.MutationMarkdownFile))
	if p := m.Problems(); len(p) > 0 {
		return Failed{fmt.Errorf("the mutation matrix has %d problems:\n  %s", len(p), strings.Join(p, "\n  "))}
	}
	return nil
}

// writeMutation builds the matrix from the runs so far and writes it.
func writeMutation(dir string, m *matrix.Mutation) error {
	m.Build(mutationTests(m.Runs), suites.MutationReasons, suites.MutantCatches)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, matrix.MutationJSONFile), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, matrix.MutationMarkdownFile), []byte(m.Markdown()), 0o644)
}

// mutationTests are the matrix's rows: every test of the profiles the runs cover.
func mutationTests(runs []matrix.MutationRun) []matrix.MutationTest {
	var profiles []string
	for _, r := range runs {
		for _, p := range r.Profiles {
			if !slices.Contains(profiles, p) {
				profiles = append(profiles, p)
			}
		}
	}
	tests, _ := framework.Select(suites.All(), profiles) // the families name profiles that exist (TestMutantFamilies)
	var out []matrix.MutationTest
	for _, t := range tests {
		out = append(out, matrix.MutationTest{ID: t.ID, Profile: t.Profile, Description: t.Description})
	}
	return out
}
