//go:build !incluster

package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// A shard that gets no job of the plan (more shards than jobs) writes a night of none,
// with its shard, seed and machine, and `report merge` of the night's shards is not red
// for it; shards that ran with two seeds make the merge red for that alone, in
// nightly.json's problems (not its missing jobs) and on the page.
func TestShardWithoutJobsLeavesItsNight(t *testing.T) {
	state, dir := t.TempDir(), t.TempDir()
	plan, err := matrix.NewPlan([]string{"v1.35.4", "v1.36.3"}, matrix.PlanOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	writeJSON(t, planFile, plan)
	shards := []string{filepath.Join(dir, "shard-1"), filepath.Join(dir, "shard-2"), filepath.Join(dir, "shard-3")}
	if jobs, _ := plan.Shard(3, 3); len(jobs) != 0 {
		t.Fatalf("shard 3/3 of the plan has jobs %+v; the test needs one without", jobs)
	}
	out, code := runApp(t, state, "nightly", "--plan-file", planFile, "--shard", "3/3", "--seed", "7", "--report-dir", shards[2])
	if code != 0 {
		t.Fatalf("nightly --shard 3/3 of %d jobs: exit %d:\n%s", len(plan.Jobs), code, out)
	}
	idle := readNightlyFile(t, shards[2])
	host, _ := os.Hostname()
	if idle.Shard != "3/3" || idle.Seed != 7 || idle.Machine != host || len(idle.Jobs) != 0 || idle.Plan == nil || len(idle.Plan.Jobs) != len(plan.Jobs) {
		t.Errorf("shard 3/3 wrote shard %q, seed %d, machine %q, jobs %+v, plan %+v; want 3/3, 7, %q, none, the plan", idle.Shard, idle.Seed, idle.Machine, idle.Jobs, idle.Plan, host)
	}

	for i := range 2 {
		if err := os.MkdirAll(shards[i], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := campaign.WriteNightly(shards[i], passedShard(t, plan, i+1, 3, 7)); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(dir, "merged")
	if out, code := runApp(t, state, append([]string{"report", "merge", "--out", merged}, shards...)...); code != 0 {
		t.Errorf("report merge of two shards that passed and one that had no job: exit %d, want 0:\n%s", code, out)
	}
	if n := readNightlyFile(t, merged); len(n.Missing) != 0 || len(n.Problems) != 0 || len(n.Failures()) != 0 {
		t.Errorf("the merged night: missing %q, problems %q, failures %q; want none", n.Missing, n.Problems, n.Failures())
	}

	if err := campaign.WriteNightly(shards[1], passedShard(t, plan, 2, 3, 8)); err != nil {
		t.Fatal(err)
	}
	merged = filepath.Join(dir, "merged-seeds")
	out, code = runApp(t, state, append([]string{"report", "merge", "--out", merged}, shards...)...)
	n := readNightlyFile(t, merged)
	page, _ := os.ReadFile(filepath.Join(merged, "index.html"))
	if code != 1 || len(n.Missing) != 0 || len(n.Problems) != 1 || !strings.Contains(n.Problems[0], "shard 2/3 ran with seed 8") ||
		!strings.Contains(string(page), "shard 2/3 ran with seed 8") || !strings.Contains(out, "shard 2/3 ran with seed 8") {
		t.Errorf("a merge of shards of seeds 7 and 8: exit %d, missing %q, problems %q; want 1 and the seeds a problem, on the page too:\n%s", code, n.Missing, n.Problems, out)
	}
}

// passedShard is shard i of n of plan as nightly --shard records it when every job passed.
func passedShard(t *testing.T, plan matrix.Plan, i, n int, seed int64) *matrix.Nightly {
	t.Helper()
	jobs, err := plan.Shard(i, n)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("shard %d/%d: %v, %d jobs; want some", i, n, err, len(jobs))
	}
	night := &matrix.Nightly{Versions: plan.Versions, Seed: seed, Shard: fmt.Sprintf("%d/%d", i, n), Plan: &plan, Machine: "machine-" + strconv.Itoa(i)}
	for _, j := range jobs {
		row := night.PairRow(j.From, j.To)
		switch j.What {
		case matrix.JobConformance:
			row.ConformanceElsewhere = false
			row.Conformance = &report.Conformance{Profiles: []report.Profile{{Name: "discovery", Passed: 3}}}
		case matrix.JobUpgrade:
			row.Upgrade = matrix.UpgradeRun{Ran: true, Passed: true, Servers: 3, Dir: row.Upgrade.Dir}
		default:
			t.Fatalf("job %s: the test makes pairs' jobs only", j.ID)
		}
		night.Jobs = append(night.Jobs, matrix.JobRun{ID: j.ID, Machine: night.Machine, Shard: night.Shard, Seconds: j.Seconds})
	}
	return night
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func readNightlyFile(t *testing.T, dir string) *matrix.Nightly {
	t.Helper()
	n, err := campaign.ReadNightly(filepath.Join(dir, "nightly.json"))
	if err != nil {
		t.Fatalf("%s left no night: %v", dir, err)
	}
	return n
}
