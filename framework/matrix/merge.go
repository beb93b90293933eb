package matrix

import (
	"fmt"
	"slices"
)

// MergeNightlies is the night the shards ran between them (each a Nightly written by
// `skewcheck nightly --shard i/n`), as one machine running the whole plan would have
// written it: every pair's row with the parts its shards ran, every mutation family,
// every job with its machine and duration. A job of the plan that no shard ran (a shard
// that failed to start, was cancelled, or was never given) is listed in Missing, and its
// part of a pair's row says which shard owed it: a failure of the night, never a pass,
// and one failure (Failures lists it once). Shards that ran with different seeds are a
// problem of the night (Problems), not a missing job. The wall time is the longest
// shard's. parts must share one plan.
func MergeNightlies(parts []*Nightly) (*Nightly, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("no shard's nightly.json to merge")
	}
	var plan *Plan
	shards := 0
	seen := map[string]bool{}
	for _, p := range parts {
		if seen[p.Shard] {
			return nil, fmt.Errorf("shard %s is given twice: give each shard's directory once", p.Shard)
		}
		seen[p.Shard] = true
		if p.Plan == nil {
			return nil, fmt.Errorf("the night of %s has no plan: it was written before nights had one, or not by nightly --shard", p.Date.Format("2006-01-02 15:04"))
		}
		if plan == nil {
			plan = p.Plan
		} else if !samePlan(*plan, *p.Plan) {
			return nil, fmt.Errorf("shards of different plans (%d and %d jobs, versions %v and %v): merge the shards of one night", len(plan.Jobs), len(p.Plan.Jobs), plan.Versions, p.Plan.Versions)
		}
		if _, n, err := ParseShard(p.Shard); err == nil {
			if shards != 0 && n != shards {
				return nil, fmt.Errorf("shards of different splits (%d and %d shards): merge the shards of one night", shards, n)
			}
			shards = n
		}
	}
	out := &Nightly{Date: parts[0].Date, Versions: plan.Versions, Seed: parts[0].Seed, Plan: plan, Shard: fmt.Sprintf("merged from %d of %d shards", len(parts), shards)}
	ran := map[string]bool{}
	for _, p := range parts {
		if p.Date.Before(out.Date) {
			out.Date = p.Date
		}
		out.Duration = max(out.Duration, p.Duration)
		if p.Seed != out.Seed {
			out.Problems = append(out.Problems, fmt.Sprintf("shard %s ran with seed %d, shard %s with %d: the night cannot be replayed with one seed; give every shard the same --seed (NIGHTLY_SEED)",
				p.Shard, p.Seed, parts[0].Shard, out.Seed))
		}
		out.Mutations = append(out.Mutations, p.Mutations...)
		out.Others = append(out.Others, p.Others...)
		out.Jobs = append(out.Jobs, p.Jobs...)
		for _, j := range p.Jobs {
			ran[j.ID] = true
		}
		for _, pair := range p.Pairs {
			row := out.PairRow(pair.From, pair.To)
			if !pair.ConformanceElsewhere {
				row.Conformance, row.ConformanceDir, row.ConformanceError, row.ConformanceKnownDefect = pair.Conformance, pair.ConformanceDir, pair.ConformanceError, pair.ConformanceKnownDefect
				row.ConformanceElsewhere = false
			}
			if !pair.Upgrade.Elsewhere {
				row.Upgrade = pair.Upgrade
			}
			row.Seconds += pair.Seconds
		}
	}
	for _, j := range plan.Jobs {
		if ran[j.ID] {
			continue
		}
		why := fmt.Sprintf("no shard ran it (shard %s of the plan owed it and left no result)", owner(*plan, j.ID, shards))
		out.Missing = append(out.Missing, fmt.Sprintf("job %s: %s", j.ID, why))
		// The row shows the part red, with why; marked missing, so that Failures, which
		// lists the line above, does not list it again as the pair's.
		switch j.What {
		case JobConformance:
			row := out.PairRow(j.From, j.To)
			row.ConformanceElsewhere, row.ConformanceMissing, row.ConformanceError = false, true, why
		case JobUpgrade:
			row := out.PairRow(j.From, j.To)
			row.Upgrade.Elsewhere, row.Upgrade.Missing, row.Upgrade.Error = false, true, why
		}
	}
	return out, nil
}

// owner is "i/n", the shard of n that plan gives job id, or "?" when n is unknown.
func owner(plan Plan, id string, n int) string {
	for i := 1; i <= n; i++ {
		jobs, _ := plan.Shard(i, n)
		if slices.ContainsFunc(jobs, func(j Job) bool { return j.ID == id }) {
			return fmt.Sprintf("%d/%d", i, n)
		}
	}
	return "?"
}

// samePlan: the same versions and the same jobs with the same durations, so the same split.
func samePlan(a, b Plan) bool {
	return slices.Equal(a.Versions, b.Versions) && slices.EqualFunc(a.Jobs, b.Jobs, func(x, y Job) bool { return x == y })
}
