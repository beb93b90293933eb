package campaign

import (
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/suites"
)

// A pair's soak profiles, on the conformance job's three servers: the tests that wait out
// an upstream grace period (minutes), which the conformance job leaves out.
func init() {
	registerJobKind(matrix.JobSoak, childJob{args: func(j matrix.Job, seed, dir string) []string {
		return append(append([]string{"conformance"}, serverArgs(clusters.HighlyAvailable(j.From, j.To))...),
			"--profiles", strings.Join(suites.SoakProfiles, ","), "--seed", seed, "--report-dir", dir)
	}}.run)
}
