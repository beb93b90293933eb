package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/framework/report"
)

func reportCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "report", Short: "Work with conformance reports"}
	var out string
	compare := &cobra.Command{
		Use:     "compare NAME=DIR NAME=DIR...",
		Short:   "Put conformance runs side by side (e.g. upstream and the reference) as a table",
		Example: "  skewcheck report compare upstream=_reports/upstream reference=_reports/reference --out _reports",
		Args:    cobra.MinimumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			var names []string
			var runs []*report.Conformance
			for _, a := range args {
				name, dir, ok := strings.Cut(a, "=")
				if !ok {
					return fmt.Errorf("%q: want NAME=REPORT-DIR, e.g. upstream=_reports/upstream", a)
				}
				r, err := report.Read(dir)
				if err != nil {
					return err
				}
				names, runs = append(names, name), append(runs, r)
			}
			c := report.Compare(names, runs)
			md := c.Markdown()
			fmt.Print(md)
			if out == "" {
				return nil
			}
			b, _ := json.MarshalIndent(c, "", "  ")
			if err := os.WriteFile(filepath.Join(out, "comparison.json"), b, 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(out, "comparison.md"), []byte(md), 0o644)
		},
	}
	compare.Flags().StringVar(&out, "out", "", "also write comparison.md and comparison.json here")
	cmd.AddCommand(compare)
	return cmd
}
