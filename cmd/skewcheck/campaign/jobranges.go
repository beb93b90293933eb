package campaign

import (
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// A far end of the ranges is judged by the ranges, not by its exit code.
func init() {
	registerJobKind(matrix.JobRanges, childJob{args: rangeEndArgs, verdict: rangesVerdict}.run)
}

// rangeEndArgs are the conformance run of a far end of the ranges (matrix.JobRanges): its
// release twice, batch/v1 off on the first server for a skew (clusters.OneWayPair), its
// profiles against skewcheck's own reference where a profile tests a gateway or a
// dataplane (the run is about the apiservers' versions, not about a product).
func rangeEndArgs(j matrix.Job, seed, dir string) []string {
	args := append(append([]string{"conformance"}, serverArgs(clusters.OneWayPair(j.From, j.To))...),
		"--profiles", j.Profiles, "--seed", seed, "--report-dir", dir)
	profiles := strings.Split(j.Profiles, ",")
	if len(suites.Where(profiles, framework.Profile.NeedsGateway)) > 0 {
		args = append(args, "--gateway", "reference")
	}
	if len(suites.Where(profiles, framework.Profile.NeedsDataplane)) > 0 {
		args = append(args, "--dataplane", "reference")
	}
	return args
}

// rangesVerdict judges a far end's run by the ranges alone, not by its exit code: tests
// skipped by range make the run "partial" (exit 2) by design. It fails when the run left
// no report, or when its report contradicts a range (a test failed inside its range, ran
// outside it, or failed outside its deviation's range: matrix.CheckRanges).
func rangesVerdict(c *report.Conformance, readErr, runErr error) (passed bool, why string) {
	if readErr != nil {
		return false, fmt.Sprintf("no report: %v; %v", runErr, readErr)
	}
	var contradicted []string
	for _, check := range matrix.CheckRanges(suites.All(), []*report.Conformance{c}) {
		for _, p := range check.Problems {
			contradicted = append(contradicted, check.ID+" ("+check.Range+"): "+p)
		}
	}
	if len(contradicted) > 0 {
		return false, "contradicts its ranges: " + strings.Join(contradicted, "; ")
	}
	return true, ""
}
