package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/suites"
)

// NightPlan is the night o describes, as nightly --plan prints it: the plan in o.PlanFile,
// or a new one of o.Versions, with each job's duration from o.Previous or an estimate.
func NightPlan(ctx context.Context, o NightOptions) (matrix.Plan, error) {
	if _, _, err := checkNight(o, true); err != nil {
		return matrix.Plan{}, err
	}
	return planNight(ctx, o)
}

// planNight is the plan in o.PlanFile, or a new one of o.Versions, each resolved to a
// release (a minor to its newest patch).
func planNight(ctx context.Context, o NightOptions) (matrix.Plan, error) {
	var previous []matrix.JobRun
	if o.Previous != "" {
		n, err := ReadNightly(o.Previous)
		if err != nil {
			return matrix.Plan{}, fmt.Errorf("--previous: %w: give the nightly.json an earlier night wrote, or leave --previous out for the estimates", err)
		}
		previous = n.Jobs
	}
	if o.PlanFile != "" {
		return readPlan(o.PlanFile)
	}
	var versions []string
	for _, v := range o.Versions {
		r, err := binaries.Resolve(ctx, v)
		if err != nil {
			return matrix.Plan{}, err
		}
		versions = append(versions, r)
	}
	po := matrix.PlanOptions{Providers: o.Providers, Emulation: o.Emulation, EmulationPossible: func(older, newer string) bool {
		return local.CheckEmulation(newer, strings.TrimPrefix(semver.MajorMinor(older), "v")) == nil
	}}
	if o.Mutation {
		po.Families = mutationFamilies()
	}
	if o.Soak {
		po.Soak = soakApplies
	}
	if o.Ranges {
		po.RangeEnds = suites.RangeEnds
	}
	return matrix.NewPlan(versions, po, previous)
}

// readPlan reads a plan nightly --plan printed.
func readPlan(path string) (matrix.Plan, error) {
	var plan matrix.Plan
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &plan)
	}
	if err == nil && len(plan.Jobs) == 0 {
		err = fmt.Errorf("it has no jobs")
	}
	if err == nil {
		err = plan.Validate()
	}
	if err != nil {
		return plan, fmt.Errorf("--plan-file %s: %w: give the JSON nightly --plan printed", path, err)
	}
	return plan, nil
}

// soakApplies says whether some test of the soak profiles applies to both versions: a
// pair older than every such test's range would only skip them.
func soakApplies(older, newer string) bool {
	tests, _ := framework.Select(suites.All(), suites.SoakProfiles)
	return slices.ContainsFunc(tests, func(t framework.Test) bool {
		return framework.InRange(older, t.Since, t.Until) && framework.InRange(newer, t.Since, t.Until)
	})
}
