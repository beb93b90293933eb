// Package campaign runs skewcheck's runs of runs: the night's version matrix, the mutation
// matrix and the emulated-vs-real comparison. Each run of a campaign is a child skewcheck
// (ginkgo runs once per process, and one run's crash must not end the campaign), so a
// campaign is given the binary to run, plain options and writers, and ends with a typed
// outcome (Failed, Incomplete) the command maps to its exit code.
package campaign

// Failed is a campaign that ran and found what makes it fail: a test failed, a run left no
// report, a matrix has problems. skewcheck exits 1 for it, as for any error.
type Failed struct{ Err error }

func (f Failed) Error() string { return f.Err.Error() }
func (f Failed) Unwrap() error { return f.Err }

// Incomplete is a campaign in which nothing failed but tests that apply could not run:
// skewcheck exits 2 for it, as for an incomplete conformance run.
type Incomplete struct{ Err error }

func (i Incomplete) Error() string { return i.Err.Error() }
func (i Incomplete) Unwrap() error { return i.Err }
