package campaign

import "github.com/skewcheck/skewcheck/framework/matrix"

// The newest pair's default profiles on another provider (kind, containers): what users
// run, beside the local processes of the other jobs.
func init() {
	registerJobKind(matrix.JobProvider, childJob{args: func(j matrix.Job, seed, dir string) []string {
		return []string{"conformance", "--provider", j.Provider, "--versions", j.From + "," + j.To, "--seed", seed, "--report-dir", dir}
	}}.run)
}
