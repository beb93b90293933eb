//go:build !incluster

package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

func newReportCommand(streams IOStreams) *cobra.Command {
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
			fmt.Fprint(streams.Out, md)
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
	cmd.AddCommand(compare, newRangesCommand(streams), newReportEmulationCommand(streams), newMergeCommand(streams))
	return cmd
}

// newReportEmulationCommand compares the reports of a real pair and its emulation again,
// as skewcheck emulation did after running them, without running anything.
func newReportEmulationCommand(streams IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:     "emulation REAL-DIR EMULATED-DIR",
		Short:   "Put a real pair's conformance run and its emulation's side by side, each difference explained (as skewcheck emulation does)",
		Example: "  skewcheck report emulation _reports/emulation/real _reports/emulation/emulated --out _reports/emulation",
		Args:    cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			real, err := report.Read(args[0])
			if err != nil {
				return err
			}
			emulated, err := report.Read(args[1])
			if err != nil {
				return err
			}
			e := matrix.CompareEmulation(suites.All(), real, emulated)
			md := e.Markdown()
			fmt.Fprint(streams.Out, md)
			if out != "" {
				if err := campaign.WriteEmulation(out, e, md); err != nil {
					return err
				}
			}
			return campaignExit(campaign.EmulationVerdict(e, real, emulated, real.Seed))
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "also write emulation.md and emulation.json here")
	return cmd
}

func newRangesCommand(streams IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "ranges DIR...",
		Short: "Check every test's and known deviation's version range against the runs under the directories",
		Long: `Reads every conformance report (conformance-report.json) under the directories and sets each
test's version range against the runs that included it, and each known deviation's against
the runs of upstream Kubernetes: a range is exercised when a run inside it and one beyond
each bounded end agree with it (a test passes inside and skips outside). A deviation's end
counts only by what a run saw of it: observed at an endpoint inside the range, or found
absent (the behaviour it covers checked and held) at an endpoint beyond the end; a run that
passed without either is listed as no evidence. Exit 1 when a run contradicts a range; a
range no run reached on some side is listed, not failed.`,
		Example: "  skewcheck report ranges _reports/nightly _reports/ranges --out _reports/ranges.md",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, dirs []string) error {
			runs, err := readReportsUnder(dirs)
			if err != nil {
				return err
			}
			checks := matrix.CheckRanges(suites.All(), runs)
			md := matrix.RangesMarkdown(checks)
			fmt.Fprint(streams.Out, md)
			if out != "" {
				if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
					return err
				}
			}
			for _, c := range checks {
				if len(c.Problems) > 0 {
					return fmt.Errorf("runs contradict version ranges (see the CONTRADICTED rows): fix the range or the test, or, for a failure of a proxy under test, the proxy (its report says why)")
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "also write the table to this file")
	return cmd
}

// readReportsUnder reads every conformance report below the directories.
func readReportsUnder(dirs []string) ([]*report.Conformance, error) {
	var runs []*report.Conformance
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != report.JSONFile {
				return err
			}
			r, err := report.Read(path)
			if err != nil {
				return err
			}
			runs = append(runs, r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading reports under %s: %w", dir, err)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no %s under %s: give the --report-dir of conformance or nightly runs", report.JSONFile, strings.Join(dirs, ", "))
	}
	return runs, nil
}
