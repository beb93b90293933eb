package campaign

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// Every kind of job a plan holds, with every option on, is one a night runs; a plan of a
// kind no file here runs is refused before anything is built, naming the kinds there are.
func TestEveryJobKindRuns(t *testing.T) {
	plan, err := matrix.NewPlan([]string{"v1.35.4", "v1.36.3"}, matrix.PlanOptions{Families: mutationFamilies(), Providers: []string{"kind"}, Emulation: true,
		Soak: soakApplies, RangeEnds: []matrix.RangeEnd{{Name: "v1.29.15", Version: "v1.29.15", Profiles: "mvp"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, j := range plan.Jobs {
		kinds[j.What] = true
	}
	for _, what := range []string{matrix.JobConformance, matrix.JobUpgrade, matrix.JobMutation, matrix.JobProvider, matrix.JobEmulation, matrix.JobSoak, matrix.JobRanges} {
		if !kinds[what] {
			t.Errorf("the plan has no %s job: the test no longer covers every kind", what)
		}
	}
	if err := runnable(plan.Jobs); err != nil {
		t.Error(err)
	}
	err = runnable([]matrix.Job{{ID: "v1.35.4-v1.36.3/bake", What: "bake"}})
	if err == nil || !strings.Contains(err.Error(), `job "v1.35.4-v1.36.3/bake" is of kind "bake", which this skewcheck cannot run (it runs conformance, emulation, mutation, provider, ranges, soak, upgrade)`) {
		t.Errorf("a job of no kind: %v", err)
	}
}
