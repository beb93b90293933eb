package matrix

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/report"
)

// runShard is what `nightly --shard i/n` records of plan's share i of n, each job with a
// result of its own (a pair's profile, a passed upgrade, a family's summary), as
// runNightly records them.
func runShard(t *testing.T, plan Plan, i, n int) *Nightly {
	t.Helper()
	jobs, err := plan.Shard(i, n)
	if err != nil {
		t.Fatal(err)
	}
	return runJobs(plan, i, n, jobs)
}

// runJobs is what shard i of n records when it ran jobs, its share or the first of them
// (a shard cut short).
func runJobs(plan Plan, i, n int, jobs []Job) *Nightly {
	night := &Nightly{Date: time.Date(2026, 11, 28, 3, i, 0, 0, time.UTC), Versions: plan.Versions, Seed: 42, Shard: fmt.Sprintf("%d/%d", i, n), Plan: &plan,
		Machine: fmt.Sprintf("machine-%d", i)}
	for _, j := range jobs {
		switch j.What {
		case JobConformance:
			row := night.PairRow(j.From, j.To)
			row.ConformanceElsewhere = false
			row.Conformance = &report.Conformance{Seed: 42, Profiles: []report.Profile{{Name: "mvp", Passed: 30}}}
		case JobUpgrade:
			row := night.PairRow(j.From, j.To)
			row.Upgrade = UpgradeRun{Ran: true, Passed: true, Servers: 3, Dir: row.Upgrade.Dir}
		case JobProvider, JobEmulation:
			night.Others = append(night.Others, NightlyRun{ID: j.ID, What: j.What, From: j.From, To: j.To, Dir: j.ID, Passed: true})
		case JobMutation:
			night.Mutations = append(night.Mutations, NightlyMutation{Family: j.Family, Dir: "mutation/" + j.Family, Summary: j.Family + " caught"})
		}
		night.Jobs = append(night.Jobs, JobRun{ID: j.ID, Machine: night.Machine, Shard: night.Shard, Seconds: j.Seconds})
		night.Duration += j.Seconds
	}
	return night
}

// Shards merged give the night one machine gives for the same plan: the same rows, the
// same families, every job once; the wall time is the longest shard's.
func TestMergeOfShardsEqualsOneMachine(t *testing.T) {
	plan, err := NewPlan(night, PlanOptions{Families: []string{"peerproxy", "gateway", "ipmode"}, Providers: []string{"kind", "containers"}, Emulation: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := runShard(t, plan, 1, 1)
	for n := 2; n <= 6; n++ {
		var parts []*Nightly
		longest := 0.0
		for i := 1; i <= n; i++ {
			parts = append(parts, runShard(t, plan, i, n))
			longest = max(longest, parts[i-1].Duration)
		}
		merged, err := MergeNightlies(parts)
		if err != nil {
			t.Fatal(err)
		}
		if len(merged.Missing) != 0 || len(merged.Failures()) != 0 {
			t.Errorf("n=%d: missing %q, failures %q", n, merged.Missing, merged.Failures())
		}
		if !reflect.DeepEqual(merged.Pairs, whole.Pairs) {
			t.Errorf("n=%d: merged rows differ from one machine's:\n%+v\n%+v", n, merged.Pairs, whole.Pairs)
		}
		if len(merged.Mutations) != 3 || len(merged.Others) != len(whole.Others) || len(merged.Jobs) != len(plan.Jobs) || merged.Duration != longest {
			t.Errorf("n=%d: %d families, %d other runs, %d jobs, %v s (want 3, %d, %d, the longest shard's %v s)", n, len(merged.Mutations), len(merged.Others),
				len(merged.Jobs), merged.Duration, len(whole.Others), len(plan.Jobs), longest)
		}
	}
}

// A shard that left nothing is red: each job it owed is a failure naming the shard, and
// the rows it owed parts of say so.
func TestMergeWithAMissingShard(t *testing.T) {
	plan, err := NewPlan(night, PlanOptions{Families: []string{"peerproxy", "gateway", "ipmode"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	owed, _ := plan.Shard(2, 3)
	merged, err := MergeNightlies([]*Nightly{runShard(t, plan, 1, 3), runShard(t, plan, 3, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Missing) != len(owed) {
		t.Fatalf("missing %q, want the %d jobs shard 2/3 owed", merged.Missing, len(owed))
	}
	for i, j := range owed {
		if !strings.Contains(merged.Missing[i], j.ID) || !strings.Contains(merged.Missing[i], "shard 2/3") {
			t.Errorf("missing line %q does not name %s and shard 2/3", merged.Missing[i], j.ID)
		}
	}
	page, err := merged.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Failures()) != len(owed) || strings.Contains(string(page), "another shard's") {
		t.Errorf("failures %q; the merged page must not leave any part to another shard", merged.Failures())
	}
	for _, p := range merged.Pairs {
		if p.ConformanceElsewhere || p.Upgrade.Elsewhere {
			t.Errorf("%s + %s: a part is still another shard's in the merged night", p.From, p.To)
		}
	}

	other, _ := NewPlan(night[:3], PlanOptions{}, nil)
	if _, err := MergeNightlies([]*Nightly{runShard(t, plan, 1, 2), runShard(t, other, 2, 2)}); err == nil {
		t.Error("shards of two plans were merged")
	}
}

// A shard's directory given twice is refused: its jobs would count twice, and "3 of 2
// shards" would read as a whole night.
func TestMergeRefusesAShardTwice(t *testing.T) {
	plan, err := NewPlan(night, PlanOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := runShard(t, plan, 1, 2)
	if _, err := MergeNightlies([]*Nightly{one, runShard(t, plan, 2, 2), one}); err == nil || !strings.Contains(err.Error(), "shard 1/2 is given twice") {
		t.Errorf("shard 1/2 twice: %v, want refused", err)
	}
}

// A job no shard ran is one failure of the night, however the shard that owed it failed:
// it left nothing, or it was cut short after its first job. Missing names the job and
// the shard once; the pair's row shows the part red, saying so, and is not listed again.
func TestMergeListsAMissingJobOnce(t *testing.T) {
	plan, err := NewPlan(night, PlanOptions{Families: []string{"peerproxy", "gateway", "ipmode"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	owed, _ := plan.Shard(2, 3)
	var kinds []string
	for _, j := range owed[1:] {
		kinds = append(kinds, j.What)
	}
	if !slices.Contains(kinds, JobConformance) || !slices.Contains(kinds, JobUpgrade) || !slices.Contains(kinds, JobMutation) {
		t.Fatalf("shard 2/3 owes %+v past its first job; the test needs a conformance run, an upgrade and a family among them", owed)
	}
	for _, c := range []struct {
		name    string
		shard2  []*Nightly // what shard 2/3 left
		missing []Job
	}{
		{"shard 2/3 left nothing", nil, owed},
		{"shard 2/3 was cut short after its first job", []*Nightly{runJobs(plan, 2, 3, owed[:1])}, owed[1:]},
	} {
		t.Run(c.name, func(t *testing.T) {
			merged, err := MergeNightlies(slices.Concat([]*Nightly{runShard(t, plan, 1, 3)}, c.shard2, []*Nightly{runShard(t, plan, 3, 3)}))
			if err != nil {
				t.Fatal(err)
			}
			failures := merged.Failures()
			if len(merged.Missing) != len(c.missing) || len(failures) != len(c.missing) {
				t.Errorf("missing %q\nfailures %q\nwant one line each for the %d jobs shard 2/3 did not run", merged.Missing, failures, len(c.missing))
			}
			for _, j := range c.missing {
				n := 0
				for _, f := range failures {
					if strings.Contains(f, "job "+j.ID+":") && strings.Contains(f, "shard 2/3") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s is named in %d failures, want 1: %q", j.ID, n, failures)
				}
			}
			page, err := merged.HTML()
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range c.missing {
				if j.What == JobMutation {
					continue
				}
				p := merged.PairRow(j.From, j.To)
				if (j.What == JobConformance && !strings.Contains(p.ConformanceError, "shard 2/3")) || (j.What == JobUpgrade && !strings.Contains(p.Upgrade.Error, "shard 2/3")) {
					t.Errorf("%s: the row does not say which shard owed it: %+v", j.ID, *p)
				}
			}
			if want := "not run: no shard ran it (shard 2/3"; !strings.Contains(string(page), want) {
				t.Errorf("the page does not show a missing part red, as %q", want)
			}
		})
	}
}

// Shards that ran with different seeds are a problem of the night, not a missing job:
// Missing stays empty, Problems names the shards and their seeds, and the night is still
// red, on the page and in nightly.json.
func TestMergeOfShardsOfTwoSeeds(t *testing.T) {
	plan, err := NewPlan(night, PlanOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := []*Nightly{runShard(t, plan, 1, 3), runShard(t, plan, 2, 3), runShard(t, plan, 3, 3)}
	parts[1].Seed = 43
	merged, err := MergeNightlies(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Missing) != 0 {
		t.Errorf("missing %q: every job ran, a seed is no job", merged.Missing)
	}
	if len(merged.Problems) != 1 || !strings.Contains(merged.Problems[0], "shard 2/3 ran with seed 43, shard 1/3 with 42") || !strings.Contains(merged.Problems[0], "--seed") {
		t.Fatalf("problems %q, want one naming shard 2/3's seed 43, shard 1/3's 42 and --seed", merged.Problems)
	}
	if f := merged.Failures(); !slices.Equal(f, merged.Problems) {
		t.Errorf("failures %q, want the night red for its seeds alone", f)
	}
	page, err := merged.HTML()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	var back Nightly
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Problems, merged.Problems) || len(back.Missing) != 0 {
		t.Errorf("nightly.json gives problems %q and missing %q (%v), want the problem alone", back.Problems, back.Missing, err)
	}
	if !strings.Contains(string(page), "shard 2/3 ran with seed 43") || !strings.Contains(merged.Summary(), "1 failures") {
		t.Errorf("the page or its summary (%s) does not show the night red for its seeds", merged.Summary())
	}
}

// A shard that got no job (more shards than jobs) leaves a night of none, with its shard,
// seed and machine: merged with the others it is no failure, whether it is given or not.
func TestMergeWithAShardThatGotNoJob(t *testing.T) {
	plan, err := NewPlan(night[:2], PlanOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	idle := runShard(t, plan, 3, 3)
	if len(idle.Jobs) != 0 || idle.Shard != "3/3" || idle.Seed != 42 || idle.Machine == "" {
		t.Fatalf("shard 3/3 of %d jobs: %+v, want a night of no job with its shard, seed and machine", len(plan.Jobs), idle)
	}
	all := []*Nightly{runShard(t, plan, 1, 3), runShard(t, plan, 2, 3), idle}
	for _, parts := range [][]*Nightly{all, all[:2]} {
		merged, err := MergeNightlies(parts)
		if err != nil {
			t.Fatal(err)
		}
		if f := merged.Failures(); len(f) != 0 || len(merged.Jobs) != len(plan.Jobs) {
			t.Errorf("%s: failures %q, %d jobs; want none, and the plan's %d", merged.Shard, f, len(merged.Jobs), len(plan.Jobs))
		}
	}
}
