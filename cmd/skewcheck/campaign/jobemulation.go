package campaign

import "github.com/skewcheck/skewcheck/framework/matrix"

// A pair's emulated-vs-real comparison: skewcheck emulation, whose exit code is its verdict.
func init() {
	registerJobKind(matrix.JobEmulation, childJob{args: func(j matrix.Job, seed, dir string) []string {
		return []string{"emulation", "--versions", j.From + "," + j.To, "--seed", seed, "--report-dir", dir}
	}}.run)
}
