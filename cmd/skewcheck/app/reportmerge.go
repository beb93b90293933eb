//go:build !incluster

package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework/matrix"
)

func newMergeCommand(streams IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD-DIR...",
		Short: "One morning page from the report directories of a night's shards (nightly --shard i/n)",
		Long: `Reads nightly.json in each shard's report directory, copies every report under them into
--out, and writes there the index.html, nightly.json, junit.xml and ranges.md one machine running the
whole plan would have written, with each job's machine and duration. A job of the plan that
no shard ran (a shard that failed, was cancelled or was never started) is a failure naming
the shard that owed it. Exit 1 when the merged night has failures.`,
		Example: "  skewcheck report merge --out _reports/nightly shard-1 shard-2 shard-3",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, dirs []string) error {
			if out == "" {
				return fmt.Errorf("--out: give the directory the merged night goes to")
			}
			var parts []*matrix.Nightly
			var unread []string
			for _, dir := range dirs {
				n, err := campaign.ReadNightly(filepath.Join(dir, "nightly.json"))
				if err != nil {
					// its jobs are missing from the merge, which says so
					unread = append(unread, err.Error())
					continue
				}
				parts = append(parts, n)
			}
			if len(parts) == 0 {
				return fmt.Errorf("no shard left a nightly.json:\n  %s", strings.Join(unread, "\n  "))
			}
			merged, err := matrix.MergeNightlies(parts)
			if err != nil {
				return err
			}
			for _, dir := range dirs {
				if err := copyReports(dir, out); err != nil {
					return err
				}
			}
			if err := campaign.WriteNightly(out, merged); err != nil {
				return err
			}
			for _, u := range unread {
				fmt.Fprintln(streams.ErrOut, "warning: a shard left no night:", u)
			}
			fmt.Fprintln(streams.Out, merged.Summary())
			fmt.Fprintln(streams.Out, "index:", filepath.Join(out, "index.html"))
			if f := merged.Failures(); len(f) > 0 {
				return fmt.Errorf("the merged night failed:\n  %s", strings.Join(f, "\n  "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "where the merged night goes")
	return cmd
}

// copyReports copies every file under a shard's directory into out, but the night's own
// pages, which the merge writes anew. Shards' jobs write under directories of their own
// (a pair's conformance or upgrade, a mutation family), so nothing is overwritten.
func copyReports(shard, out string) error {
	err := filepath.WalkDir(shard, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(shard, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(out, rel), 0o755)
		}
		if rel == "nightly.json" || rel == "index.html" || rel == "junit.xml" || rel == matrix.RangesFile || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(out, rel), b, 0o644)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a shard that left no directory: its jobs are reported missing
	}
	return err
}
