package campaign

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/matrix"
)

// checkNight judges what needs no plan, binary or cluster to judge, so a mistake is
// refused in a second, naming the flags and the fix, before anything is resolved, built
// or started; it returns the shard, i of n. printsPlan: the plan is printed, no shard run.
func checkNight(o NightOptions, printsPlan bool) (i, n int, err error) {
	if len(o.Versions) < 2 {
		return 0, 0, fmt.Errorf("--versions %s: a matrix needs at least two versions", strings.Join(o.Versions, ","))
	}
	if i, n, err = matrix.ParseShard(o.Shard); err != nil {
		return 0, 0, err
	}
	// A shard without --plan-file makes a plan of its own: versions resolved when it
	// starts (a patch released in between changes them) and durations from its own
	// --previous. Two machines could then split two plans, leaving a job to no shard or
	// to two; a merge refuses shards of different plans, after the night has run. --plan
	// alone runs no shard.
	if n > 1 && o.PlanFile == "" && !printsPlan {
		return 0, 0, fmt.Errorf("--shard %s without --plan-file: every shard of a night must split the same plan, and each would make its own: run `skewcheck nightly --plan > plan.json` once and pass --plan-file plan.json to every shard (--shard 1/1, one machine, needs none)", o.Shard)
	}
	if err := checkControllerManager(o.ControllerManager); err != nil {
		return 0, 0, err
	}
	if _, err := regexp.Compile(o.Jobs); err != nil {
		return 0, 0, fmt.Errorf("--jobs %q is no regular expression: %w", o.Jobs, err)
	}
	return i, n, nil
}

// onlyJobs are the jobs whose ID matches expr (checked by checkNight); none is a mistake,
// refused with the IDs there are.
func onlyJobs(jobs []matrix.Job, expr, shard string) ([]matrix.Job, error) {
	re := regexp.MustCompile(expr)
	var ids []string
	var kept []matrix.Job
	for _, j := range jobs {
		ids = append(ids, j.ID)
		if re.MatchString(j.ID) {
			kept = append(kept, j)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("--jobs %q matches none of the %d jobs of shard %s: %s", expr, len(jobs), shard, strings.Join(ids, ", "))
	}
	return kept, nil
}

// neededVersions are the versions jobs run, each once, in the order the jobs first name
// them: the pairs' versions, then the ranges' far ends.
func neededVersions(jobs []matrix.Job) []string {
	var out []string
	for _, j := range jobs {
		for _, v := range []string{j.From, j.To} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// checkControllerManager judges --controller-manager against the conformance jobs' shape,
// clusters.HighlyAvailable: own-node, load-balancer, or one of its servers by name.
func checkControllerManager(cm string) error {
	if cm == "" || cm == clusters.OwnNodeWord || cm == clusters.ConnectLoadBalancer {
		return nil
	}
	servers := clusters.HighlyAvailable("", "")
	for i := range servers {
		if cm == fmt.Sprintf("apiserver-%d", i+1) {
			return nil
		}
	}
	return fmt.Errorf("--controller-manager %q: the conformance jobs' kube-controller-manager connects to %s, %s or apiserver-1 to apiserver-%d (each job has %d servers); empty runs none",
		cm, clusters.OwnNodeWord, clusters.ConnectLoadBalancer, len(servers), len(servers))
}
