package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/framework"
)

// listsSelection says whether --list previews what a run with these flags would select
// (--profiles, --focus, --skip, or --gateway, which chooses the gateway profile) rather
// than print the catalogue of every profile's tests, which --list alone does.
func listsSelection(cmd *cobra.Command, f *conformanceFlags) bool {
	return cmd.Flags().Changed("profiles") || f.run.Focus != "" || f.run.Skip != "" || f.gateway.enabled()
}

// listedTest is one line of --list, and one object of -o json and -o yaml: the test as
// data, named in lowerCamel for scripts.
type listedTest struct {
	ID          string `json:"id"`
	Profile     string `json:"profile"`
	Description string `json:"description"`
	// Since and Until are the minor versions the test applies to, inclusive; "" is open.
	Since string   `json:"since"`
	Until string   `json:"until"`
	Needs []string `json:"needs"`
	// KnownDeviation is the summary of the upstream defect the test allows, in its versions.
	KnownDeviation string `json:"knownDeviation,omitempty"`
	// AssertsCodeOverSpec says the test asserts upstream's code where the KEP says otherwise.
	AssertsCodeOverSpec bool `json:"assertsCodeOverSpec,omitempty"`
}

func listed(tests []framework.Test) []listedTest {
	out := make([]listedTest, 0, len(tests))
	for _, t := range tests {
		l := listedTest{ID: t.ID, Profile: t.Profile, Description: t.Description, Since: t.Since, Until: t.Until,
			Needs: make([]string, 0, len(t.Features)), AssertsCodeOverSpec: len(t.SpecVsCode) > 0}
		for _, f := range t.Features {
			l.Needs = append(l.Needs, string(f))
		}
		if t.Deviation != nil {
			l.KnownDeviation = t.Deviation.Summary
		}
		out = append(out, l)
	}
	return out
}

// printTests prints tests as a table, or as JSON or YAML.
func printTests(out io.Writer, tests []framework.Test, output outputFormat) error {
	rows := listed(tests)
	return output.print(out, rows, func() error {
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tPROFILE\tKUBERNETES\tNEEDS\tDESCRIPTION")
		for i, t := range rows {
			desc := t.Description
			if t.KnownDeviation != "" {
				desc += " (known upstream deviation)"
			}
			if t.AssertsCodeOverSpec {
				desc += " (asserts upstream's code where the KEP says otherwise)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Profile, tests[i].VersionRange(), strings.Join(t.Needs, ","), desc)
		}
		return w.Flush()
	})
}
