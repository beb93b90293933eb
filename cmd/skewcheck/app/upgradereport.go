package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// writeUpgrade prints a rolling upgrade's counts (one skewcheck drove, or one it watched),
// writes upgrade.json and timeline.svg, and fails on a violation.
func writeUpgrade(streams IOStreams, r *upgrade.Result, reportDir, headline string) error {
	c := r.Counts
	fmt.Fprintln(streams.Out, headline)
	fmt.Fprint(streams.Out, r.Table())
	for _, f := range r.Faults {
		fmt.Fprintf(streams.Out, "  fault: %s, %.1fs to %.1fs\n", f.Description, f.Start, f.End)
	}
	fmt.Fprintf(streams.Out, "reads %d, writes %d (acknowledged %d, lost %d), watch resumes %d\n", c.Reads, c.Writes, c.AckedWrites, c.LostWrites, c.WatchResumes)
	fmt.Fprintf(streams.Out, "404s: %d in step windows, %d outside; 503s: %d in step windows, %d outside\n", c.NotFoundInside, c.NotFoundOutside, c.UnavailableInside, c.UnavailableOutside)
	fmt.Fprintf(streams.Out, "failed answers of every kind: %d in step windows (%d of them no upgrade gives there), %d outside\n", c.FailedInside, c.Disallowed, c.FailedOutside)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding upgrade.json: %w", err)
	}
	// A report that could not be written fails the run, beside (never instead of) its
	// verdict.
	werr := writeReport(reportDir, reportFile{"upgrade.json", b}, reportFile{"timeline.svg", []byte(r.SVG())})
	if werr == nil {
		fmt.Fprintf(streams.Out, "report: %s, %s\n", filepath.Join(reportDir, "upgrade.json"), filepath.Join(reportDir, "timeline.svg"))
	}
	if !r.Passed() {
		for _, v := range r.Violations {
			fmt.Fprintln(streams.Out, "  violation:", v)
		}
		return errors.Join(fmt.Errorf("the rolling upgrade violated %d assertions (the load's seed was %d)", len(r.Violations), r.Seed), werr)
	}
	return werr
}
