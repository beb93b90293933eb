package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// childJob is a kind of job that is one child skewcheck, shown in one line of the page
// (matrix.NightlyRun): the newest pair's default profiles on another provider, a pair's
// emulated-vs-real comparison, its soak profiles, a far end of the ranges.
type childJob struct {
	// args are the child's, for the job, the night's seed and the job's report directory.
	args func(j matrix.Job, seed, dir string) []string
	// verdict judges the run by its report (nil: by its exit code: 0 passed; 1 failed; 2
	// could not check everything, which a night counts as a failure).
	verdict func(c *report.Conformance, readErr, runErr error) (passed bool, why string)
}

func (k childJob) run(ctx context.Context, n *night, j matrix.Job) {
	n.page.Others = append(n.page.Others, k.runChild(ctx, n, j))
}

func (k childJob) runChild(ctx context.Context, n *night, j matrix.Job) matrix.NightlyRun {
	r := matrix.NightlyRun{ID: j.ID, What: j.What, From: j.From, To: j.To, Dir: j.ID}
	dir := filepath.Join(n.ReportDir, r.Dir)
	args := k.args(j, strconv.FormatInt(n.Seed, 10), dir)
	fmt.Fprintf(n.log, "== nightly: %s\n", j.ID)
	if p, err := clusters.Lookup(j.Provider); err == nil && p.Supports(clusters.NodeImages) {
		// node images (kind's) are built here, never pulled (cached: seconds when they are)
		for _, v := range []string{j.From, j.To} {
			if _, err := runChild(ctx, n.log, n.Self, "["+j.ID+" node image "+v+"] ", nil, append([]string{"images", "node", "--version", v}, childBinaryFlags(n.Binaries)...)); err != nil {
				r.Error = "building the kind node image of " + v + ": " + err.Error()
				return r
			}
		}
	}
	defect, err := runChild(ctx, n.log, n.Self, "["+j.ID+"] ", []string{j.From, j.To}, append(args, childBinaryFlags(n.Binaries)...))
	r.Passed = err == nil
	if err != nil {
		r.Error = err.Error()
		if defect != "" {
			r.Error += " (" + defect + ")"
		}
	}
	c, rerr := report.Read(filepath.Join(dir, report.JSONFile))
	if rerr == nil {
		r.Summary = runSummary(c)
	}
	if k.verdict != nil {
		r.Passed, r.Error = k.verdict(c, rerr, err)
	}
	return r
}

// runSummary is a run's counts for its line on the page, naming the tests that passed only
// as a known upstream deviation: a soak job's SOAK-001 on 1.36, say, which the morning page
// must show as upstream's catalogued defect, not as a plain pass.
func runSummary(c *report.Conformance) string {
	s := report.ClosingLine(c)
	var deviated []string
	for _, t := range c.Tests {
		if t.KnownDeviation != "" {
			deviated = append(deviated, t.ID)
		}
	}
	if len(deviated) > 0 {
		s += fmt.Sprintf("; %d only as a known upstream deviation: %s", len(deviated), strings.Join(deviated, ", "))
	}
	return s
}
