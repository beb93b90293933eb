package campaign

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// WriteNightly writes the night to dir: nightly.json, index.html, junit.xml and the
// version ranges' table (matrix.RangesFile), which a night and a merge of shards write the
// same.
func WriteNightly(dir string, n *matrix.Nightly) error {
	// The night's runs, set against every version range the tests claim: the pairs are
	// adjacent, and the far ends' runs reach beyond them, so a night checks each range
	// from both sides.
	var runs []*report.Conformance
	var named []report.NamedRun
	for _, p := range n.Pairs {
		if p.Conformance != nil {
			runs = append(runs, p.Conformance)
			named = append(named, report.NamedRun{Name: p.From + "-" + p.To, Run: p.Conformance})
		}
	}
	for _, r := range n.Others {
		if r.What != matrix.JobRanges {
			continue
		}
		if c, err := report.Read(filepath.Join(dir, r.Dir, report.JSONFile)); err == nil {
			runs = append(runs, c)
			named = append(named, report.NamedRun{Name: r.ID, Run: c})
		}
	}
	checks := matrix.CheckRanges(suites.All(), runs)
	n.Ranges = matrix.RangesSummary(checks)
	if err := os.WriteFile(filepath.Join(dir, matrix.RangesFile), []byte(matrix.RangesMarkdown(checks)), 0o644); err != nil {
		return err
	}
	// Every pair's and far end's conformance run in one JUnit file, for CI systems that
	// read one (a merge of shards writes the same as one machine).
	junit, err := report.JUnitOf(named)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "junit.xml"), junit, 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "nightly.json"), b, 0o644); err != nil {
		return err
	}
	page, err := n.HTML()
	if err != nil {
		return fmt.Errorf("rendering index.html: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644)
}

// ReadNightly reads a night's nightly.json.
func ReadNightly(path string) (*matrix.Nightly, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var n matrix.Nightly
	if err := json.Unmarshal(b, &n); err != nil {
		return nil, fmt.Errorf("%s is no nightly.json: %w", path, err)
	}
	return &n, nil
}
