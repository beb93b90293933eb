package matrix

import (
	"fmt"
	"reflect"
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
	night := &Nightly{Date: time.Date(2026, 11, 28, 3, i, 0, 0, time.UTC), Versions: plan.Versions, Seed: 42, Shard: fmt.Sprintf("%d/%d", i, n), Plan: &plan}
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
		night.Jobs = append(night.Jobs, JobRun{ID: j.ID, Machine: fmt.Sprintf("machine-%d", i), Shard: night.Shard, Seconds: j.Seconds})
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
	if len(merged.Failures()) < len(owed) || strings.Contains(string(page), "another shard's") {
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
