package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestNightlyShardsMerge: a small night (one pair, the discovery profile, the upgrade of two
// servers without a fault, no mutation matrix) is planned once and run as two shards by two
// skewcheck processes side by side, each with a report directory of its own, as two CI
// machines run it; `report merge` makes one page of them with the pair's conformance run
// and its upgrade, each job once with its shard and duration, and the shards' failures, if
// upstream had any on this machine, and no others. Each shard alone leaves the other's job
// to it without failing for it; a merge that lacks a shard fails, naming the job that
// shard owed.
func TestNightlyShardsMerge(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	state := t.TempDir()
	plan := filepath.Join(t.TempDir(), "plan.json")
	cmd := exec.Command(cli, "nightly", "--plan", "--versions", oldV+","+newV, "--mutation=false", "--providers", "", "--emulation=false", "--soak=false", "--ranges=false")
	cmd.Env = cliEnv(t, "SKEWCHECK_STATE_DIR="+state)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("nightly --plan: %v", err)
	}
	if err := os.WriteFile(plan, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var p matrix.Plan
	if err := json.Unmarshal(b, &p); err != nil || len(p.Jobs) != 2 {
		t.Fatalf("the plan of one pair without the mutation matrix: %v, %+v; want its conformance and upgrade jobs", err, p)
	}

	dirs := []string{t.TempDir(), t.TempDir()}
	outs, codes := make([]string, 2), make([]int, 2)
	var wg sync.WaitGroup
	for i := range dirs {
		wg.Go(func() {
			outs[i], codes[i] = run(t, state, "nightly", "--plan-file", plan, "--shard", []string{"1/2", "2/2"}[i], "--seed", "7",
				"--profiles", "discovery", "--servers", "2", "--fault", "", "--report-dir", dirs[i])
		})
	}
	wg.Wait()
	// What the shards found of upstream is not this test's concern (a loaded machine can
	// fail an upstream test's bound: the night then says so), only that each ran its job,
	// left the other's to it, and said so in a nightly.json of its own.
	var failures []string
	for i, dir := range dirs {
		var n matrix.Nightly
		if b, err := os.ReadFile(filepath.Join(dir, "nightly.json")); err != nil || json.Unmarshal(b, &n) != nil {
			t.Fatalf("shard %d/2 wrote no nightly.json (exit %d): %v\n%s", i+1, codes[i], err, tail(outs[i], 30))
		}
		mine, _ := p.Shard(i+1, 2)
		if len(n.Jobs) != 1 || n.Jobs[0].ID != mine[0].ID || n.Missing != nil {
			t.Errorf("shard %d/2 ran %+v, missing %q; want its one job, %s", i+1, n.Jobs, n.Missing, mine[0].ID)
		}
		// The other shard's job is the pair's other part: no failure of this shard may be
		// about it (its own job may fail, under load, for upstream's doing).
		others := map[string][]string{matrix.JobConformance: {" upgrade:"}, matrix.JobUpgrade: {" conformance:", " profile "}}[mine[0].What]
		for _, f := range n.Failures() {
			if slices.ContainsFunc(others, func(o string) bool { return strings.Contains(f, o) }) {
				t.Errorf("shard %d/2 (%s) fails for the other shard's job: %s", i+1, mine[0].ID, f)
			}
		}
		if (codes[i] == 0) != (len(n.Failures()) == 0) {
			t.Errorf("shard %d/2: exit %d with failures %q", i+1, codes[i], n.Failures())
		}
		failures = append(failures, n.Failures()...)
	}

	merged := t.TempDir()
	out, code := run(t, state, "report", "merge", "--out", merged, dirs[0], dirs[1])
	if (code == 0) != (len(failures) == 0) {
		t.Errorf("report merge: exit %d, where the shards' failures are %q:\n%s", code, failures, out)
	}
	var n matrix.Nightly
	if b, err := os.ReadFile(filepath.Join(merged, "nightly.json")); err != nil || json.Unmarshal(b, &n) != nil {
		t.Fatalf("the merged nightly.json: %v\n%s", err, out)
	}
	if got := n.Failures(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(failures))) {
		t.Errorf("the merged night's failures %q, want the shards' own %q", got, failures)
	}
	if len(n.Pairs) != 1 || n.Pairs[0].ConformanceElsewhere || n.Pairs[0].Upgrade.Elsewhere || len(n.Jobs) != 2 {
		t.Fatalf("merged night: %d pairs, jobs %+v; want the pair with both parts its own (none another shard's), two jobs", len(n.Pairs), n.Jobs)
	}
	files := []string{"index.html", "junit.xml"}
	if n.Pairs[0].Conformance != nil {
		files = append(files, filepath.Join(n.Pairs[0].ConformanceDir, "conformance-report.json"))
	}
	if n.Pairs[0].Upgrade.Ran {
		files = append(files, filepath.Join(n.Pairs[0].Upgrade.Dir, "upgrade.json"))
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Errorf("the merged directory lacks %s: %v", f, err)
		}
	}

	out, code = run(t, state, "report", "merge", "--out", t.TempDir(), dirs[0], filepath.Join(t.TempDir(), "shard-2-never-ran"))
	owed, _ := p.Shard(2, 2)
	if code != 1 || !strings.Contains(out, "job "+owed[0].ID) || !strings.Contains(out, "shard 2/2") {
		t.Errorf("a merge without shard 2/2: exit %d, want 1 naming %s and the shard that owed it:\n%s", code, owed[0].ID, out)
	}
}
