package campaign

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// jobKinds run each kind of job of a night's plan (matrix.Job.What) and record its outcome
// in the night's page; each kind registers itself beside its running (job*.go), so a new
// kind of job is a file here and its place in the plan (matrix.NewPlan).
var jobKinds = map[string]func(ctx context.Context, n *night, j matrix.Job){}

func registerJobKind(what string, run func(ctx context.Context, n *night, j matrix.Job)) {
	if _, ok := jobKinds[what]; ok {
		panic(fmt.Sprintf("campaign: job kind %q registered twice", what))
	}
	jobKinds[what] = run
}

// runnable refuses, before anything is built, a job of a kind no file here runs: a plan
// that matrix knows and this skewcheck does not.
func runnable(jobs []matrix.Job) error {
	for _, j := range jobs {
		if jobKinds[j.What] == nil {
			return fmt.Errorf("job %q is of kind %q, which this skewcheck cannot run (it runs %s): run the plan with the skewcheck that made it",
				j.ID, j.What, strings.Join(slices.Sorted(maps.Keys(jobKinds)), ", "))
		}
	}
	return nil
}
