//go:build !incluster

package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// plannedRun is one line of mutation --list, and one object of -o json and -o yaml: a run
// of the matrix as data, named as mutation.json names its runs.
type plannedRun struct {
	Name     string `json:"name"`
	Family   string `json:"family"`
	Mutant   string `json:"mutant,omitempty"` // none for the family's baseline
	Baseline bool   `json:"baseline"`
	// BaselineFor, on a baseline, names the mutants whose focus it runs (none on the
	// family's baseline of every test).
	BaselineFor []string `json:"baselineFor,omitempty"`
	Profiles    []string `json:"profiles"`
	// Args are the run's `skewcheck conformance` flags, to replay it alone.
	Args []string `json:"args"`
	// Dir is where the run's report goes, under --report-dir.
	Dir string `json:"dir"`
}

// printMutationPlan prints the runs as a table, or as JSON or YAML.
func printMutationPlan(out io.Writer, runs []matrix.MutationRun, output outputFormat) error {
	rows := make([]plannedRun, 0, len(runs))
	for _, r := range runs {
		rows = append(rows, plannedRun{Name: r.Name, Family: r.Family, Mutant: r.Mutant, Baseline: r.Baseline(), BaselineFor: r.BaselineFor, Profiles: r.Profiles, Args: r.Args, Dir: r.Dir})
	}
	return output.print(out, rows, func() error {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "RUN\tPROFILES\tCONFORMANCE FLAGS")
		for _, r := range rows {
			name := r.Name
			switch {
			case len(r.BaselineFor) > 0:
				name += " (baseline with the focus of " + strings.Join(r.BaselineFor, ", ") + ")"
			case r.Baseline:
				name += " (baseline)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", name, strings.Join(r.Profiles, ","), strings.Join(r.Args, " "))
		}
		return w.Flush()
	})
}
