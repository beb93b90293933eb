package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// A far end's run is judged by the ranges, not by its exit code: skipping by range is
// its point; a test that ran where it does not apply, or failed inside its range, fails
// the job, naming the test; a run that left no report fails it too.
func TestRangesVerdict(t *testing.T) {
	at := func(version string, r report.Result) *report.Conformance {
		return &report.Conformance{Upstream: "started", Endpoints: []report.Endpoint{{Version: version}, {Version: version}},
			Tests: []report.Test{{ID: "MVP-001", Result: r}}}
	}
	partial := errors.New("exit status 2")
	for _, c := range []struct {
		name string
		run  *report.Conformance
		read error
		want string // "" when the job passes
	}{
		{"skipped below its range", at("v1.27.16", report.Skipped), nil, ""},
		{"passed inside it", at("v1.28.15", report.Passed), nil, ""},
		{"ran below it", at("v1.27.16", report.Passed), nil, "MVP-001 (1.28+): ran outside its range"},
		{"failed inside it", at("v1.28.15", report.Failed), nil, "MVP-001 (1.28+): failed inside its range"},
		{"no report", nil, os.ErrNotExist, "no report: exit status 2"},
	} {
		passed, why := rangesVerdict(c.run, c.read, partial)
		switch {
		case c.want == "" && (!passed || why != ""):
			t.Errorf("%s: failed (%s), want passed", c.name, why)
		case c.want != "" && (passed || !strings.Contains(why, c.want)):
			t.Errorf("%s: passed %v (%s), want failed with %q", c.name, passed, why, c.want)
		}
	}
}

// Each far end runs its release twice with batch/v1 off on the first server, and puts
// skewcheck's reference in front where its profile tests a gateway or a dataplane.
func TestRangeEndArgs(t *testing.T) {
	for _, c := range []struct {
		profiles string
		want     []string
		not      []string
	}{
		{"mvp,chaos", []string{"--profiles mvp,chaos"}, []string{"--gateway", "--dataplane"}},
		{"gateway", []string{"--profiles gateway", "--gateway reference"}, []string{"--dataplane"}},
		{"ipmode", []string{"--profiles ipmode", "--dataplane reference"}, []string{"--gateway"}},
	} {
		j := matrix.Job{ID: "ranges/x", What: matrix.JobRanges, From: "v1.29.15", To: "v1.29.15", Profiles: c.profiles}
		args := strings.Join(rangeEndArgs(j, "11", "dir"), " ")
		for _, w := range append(c.want, "conformance --versions v1.29.15,v1.29.15 --server-flag 1=--runtime-config=batch/v1=false", "--seed 11 --report-dir dir") {
			if !strings.Contains(args, w) {
				t.Errorf("%s: %q lacks %q", c.profiles, args, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(args, n) {
				t.Errorf("%s: %q has %q", c.profiles, args, n)
			}
		}
	}
}

// The far ends' runs join the pairs' in the night's ranges.md and junit.xml, so a night
// (or a merge of shards) sets every range against both.
func TestNightlyRangesIncludeTheFarEnds(t *testing.T) {
	dir := t.TempDir()
	end := filepath.Join(dir, "ranges", "v1.27.16")
	if err := os.MkdirAll(end, 0o755); err != nil {
		t.Fatal(err)
	}
	below := &report.Conformance{Upstream: "started", Endpoints: []report.Endpoint{{Version: "v1.27.16"}, {Version: "v1.27.16"}},
		Tests: []report.Test{{ID: "MVP-001", Profile: "mvp", Result: report.Skipped}}}
	if _, err := report.Write(end, below); err != nil {
		t.Fatal(err)
	}
	n := &matrix.Nightly{Versions: []string{"v1.35.4", "v1.36.3"},
		Others: []matrix.NightlyRun{{ID: "ranges/v1.27.16", What: matrix.JobRanges, From: "v1.27.16", To: "v1.27.16", Dir: "ranges/v1.27.16", Passed: true}}}
	row := n.PairRow("v1.35.4", "v1.36.3")
	row.ConformanceElsewhere = false
	row.Conformance = &report.Conformance{Upstream: "started", Endpoints: []report.Endpoint{{Version: "v1.35.4"}, {Version: "v1.36.3"}},
		Tests: []report.Test{{ID: "MVP-001", Profile: "mvp", Result: report.Passed}}}
	if err := WriteNightly(dir, n); err != nil {
		t.Fatal(err)
	}
	ranges, _ := os.ReadFile(filepath.Join(dir, matrix.RangesFile))
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	var line string
	for _, l := range strings.Split(string(ranges), "\n") {
		if strings.HasPrefix(l, "| MVP-001 |") {
			line = l
		}
	}
	if !strings.Contains(line, "v1.27.16: skipped") || !strings.Contains(line, "v1.35.4 + v1.36.3: passed") {
		t.Errorf("ranges.md's MVP-001 row %q: want the far end below and the pair inside", line)
	}
	if !strings.Contains(string(junit), "ranges/v1.27.16") {
		t.Errorf("junit.xml has no suite of the far end:\n%s", junit)
	}
}

// --jobs runs a subset of a shard's jobs, and one that matches none is refused with the
// IDs there are.
func TestOnlyJobs(t *testing.T) {
	jobs := []matrix.Job{{ID: "v1.35.4-v1.36.3/conformance"}, {ID: "ranges/v1.27.16"}, {ID: "ranges/v1.35.4"}}
	got, err := onlyJobs(jobs, "^ranges/", "1/1")
	if err != nil || !slices.EqualFunc(got, jobs[1:], func(a, b matrix.Job) bool { return a.ID == b.ID }) {
		t.Errorf("^ranges/: %v, %v; want the two far ends", got, err)
	}
	if _, err := onlyJobs(jobs, "^mutation/", "2/4"); err == nil || !strings.Contains(err.Error(), "matches none of the 3 jobs of shard 2/4: v1.35.4-v1.36.3/conformance, ranges/v1.27.16") {
		t.Errorf("^mutation/: %v; want refused with the jobs there are", err)
	}
}

// A job's line on the page names the tests that passed only as a known upstream deviation
// (a soak job's SOAK-001 on 1.36), so the morning page shows upstream's catalogued defect.
func TestRunSummaryNamesDeviations(t *testing.T) {
	c := &report.Conformance{Tests: []report.Test{{ID: "SOAK-001", Result: report.Passed, KnownDeviation: "a deleted group-version comes back"},
		{ID: "MVP-010", Result: report.Passed}, {ID: "DISC-002", Result: report.Skipped}}}
	if got, want := runSummary(c), "2 passed, 0 failed, 1 skipped; 1 only as a known upstream deviation: SOAK-001"; got != want {
		t.Errorf("runSummary = %q, want %q", got, want)
	}
	c.Tests[0].KnownDeviation = ""
	if got, want := runSummary(c), "2 passed, 0 failed, 1 skipped"; got != want {
		t.Errorf("without a deviation: %q, want %q", got, want)
	}
}
