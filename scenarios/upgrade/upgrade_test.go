package upgrade_test

import (
	"context"
	"encoding/xml"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/providers"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestRollingUpgradeUnderLoad: three servers from the old to the new version under load;
// the proxy must keep every served resource reachable outside the step windows, lose no
// acknowledged write, and every watch must resume after its server's upgrade.
func TestRollingUpgradeUnderLoad(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	var progress strings.Builder
	r, err := upgrade.Run(context.Background(), upgrade.Options{Provider: providers.Default, From: oldV, To: newV, Servers: 3, Seed: 3,
		Interval: 100 * time.Millisecond, Settle: 6 * time.Second, Window: 5 * time.Second, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	c := r.Counts
	t.Logf("%d steps; reads %d, writes %d acked %d lost %d; 404 in/out %d/%d; 503 in/out %d/%d; resumes %d",
		len(r.Steps), c.Reads, c.Writes, c.AckedWrites, c.LostWrites, c.NotFoundInside, c.NotFoundOutside, c.UnavailableInside, c.UnavailableOutside, c.WatchResumes)
	if !r.Passed() {
		t.Errorf("violations: %v", r.Violations)
	}
	if len(r.Steps) != 3 || r.To != newV || c.Reads == 0 || c.AckedWrites == 0 {
		t.Errorf("the run did not do what it should: %d steps, to %s, %d reads, %d acknowledged writes", len(r.Steps), r.To, c.Reads, c.AckedWrites)
	}
	if len(r.Hops) != 1 || r.Hops[0].Direction != upgrade.Upgrade || r.Hops[0].Start != r.Steps[0].Start || r.Hops[0].End != r.Steps[2].End {
		t.Errorf("want one upgrade hop spanning the 3 steps, got %+v", r.Hops)
	}
	// Every step and the mixed window have their counts, and skewed reads of the mixed
	// window were rerouted from the servers still at the old version.
	if len(r.Periods) != 5 {
		t.Errorf("want 3 steps, a mixed window and outside, got %+v", r.Periods)
	}
	t.Logf("periods:\n%s", r.Table())
	requireRerouted(t, r)
	var doc struct{ XMLName xml.Name }
	if err := xml.Unmarshal([]byte(r.SVG()), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Errorf("the timeline is not an SVG document: %v", err)
	}
}

// TestRollingDowngradeUnderLoad: the smallest rollback, two servers from the new version
// back to the old, under the same load and assertions. A GVR only the new version serves
// is rerouted while one server still runs it, and is gone (no server serves it) after.
func TestRollingDowngradeUnderLoad(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	var progress strings.Builder
	// Settle as the upgrade test's: the watch through the last server restarted must relist
	// and see an event again before the run ends, and 4 s was once too short for that under
	// make test's load (2026-12-02: relisted, no event yet).
	r, err := upgrade.Run(context.Background(), upgrade.Options{Provider: providers.Default, Path: []string{newV, oldV}, Servers: 2, Seed: 4,
		Interval: 100 * time.Millisecond, Settle: 6 * time.Second, Window: 5 * time.Second, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	t.Logf("periods:\n%s", r.Table())
	if !r.Passed() {
		t.Errorf("violations: %v", r.Violations)
	}
	if len(r.Hops) != 1 || r.Hops[0].Direction != upgrade.Downgrade || r.To != oldV || len(r.Steps) != 2 || r.Counts.AckedWrites == 0 {
		t.Fatalf("want one downgrade hop of 2 steps to %s with acknowledged writes, got %+v, %d steps, %d acknowledged", oldV, r.Hops, len(r.Steps), r.Counts.AckedWrites)
	}
	for _, g := range r.Hops[0].Gone {
		if versions := r.ServedBy[g]; slices.Contains(versions, oldV) || !slices.Contains(versions, newV) {
			t.Errorf("%s is gone after the downgrade, but the versions serving it are %v", g, versions)
		}
	}
	requireRerouted(t, r)
}

// requireRerouted: when the versions differ in what they serve, some reads of the mixed
// window reached a server whose version does not serve their GVR, and were answered.
func requireRerouted(t *testing.T, r *upgrade.Result) {
	t.Helper()
	if len(r.ServedBy) == 0 {
		return
	}
	mixed := r.Periods[len(r.Periods)-2]
	if c := mixed.Classes[upgrade.ClassSkewedRead]; mixed.Kind != upgrade.PeriodMixed || c == nil || c.Rerouted == 0 {
		t.Errorf("want reads of %v rerouted in the mixed window, got %+v", r.ServedBy, mixed)
	}
}

// TestRollingUpgradeWithFaults freezes the next server during every step: the upgrade still
// passes (a frozen peer may give 503s, only inside its span and window), every fault is
// healed, and the timeline shows them.
func TestRollingUpgradeWithFaults(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	var progress strings.Builder
	r, err := upgrade.Run(context.Background(), upgrade.Options{Provider: providers.Default, From: oldV, To: newV, Servers: 3, Seed: 5,
		Interval: 100 * time.Millisecond, Settle: 4 * time.Second, Window: 5 * time.Second, Progress: &progress,
		Fault: "freeze", FaultFor: 3 * time.Second})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	c := r.Counts
	t.Logf("faults %+v; reads %d, writes %d acked %d lost %d; 404 in/out %d/%d; 503 in/out %d/%d",
		r.Faults, c.Reads, c.Writes, c.AckedWrites, c.LostWrites, c.NotFoundInside, c.NotFoundOutside, c.UnavailableInside, c.UnavailableOutside)
	if !r.Passed() {
		t.Errorf("violations: %v", r.Violations)
	}
	if len(r.Faults) != 3 {
		t.Fatalf("want a fault in each of the 3 steps, got %+v", r.Faults)
	}
	for i, f := range r.Faults {
		if f.Server == r.Steps[i].Server || f.End-f.Start < 3 {
			t.Errorf("fault %d %+v: must hit another server than step %s, for at least 3s", i, f, r.Steps[i].Server)
		}
	}
	if !strings.Contains(r.SVG(), r.Faults[0].Description) {
		t.Errorf("the timeline does not show the faults")
	}
}

func TestFaultsDuringUpgradeAreProcessFaults(t *testing.T) {
	_, err := upgrade.Run(context.Background(), upgrade.Options{Provider: providers.Default, From: "v1.35.4", To: "v1.36.3", Servers: 2, Fault: "latency"})
	if err == nil || !strings.Contains(err.Error(), "only process faults") {
		t.Errorf("want a clear refusal of a network fault during an upgrade, got %v", err)
	}
}

// TestClassification: 404s and 503s count as violations only outside step windows.
func TestClassification(t *testing.T) {
	r := &upgrade.Result{Window: 5, Steps: []upgrade.Step{{Server: "a", Start: 10, End: 12}},
		Events: []upgrade.Event{
			{T: 1, Kind: "read", Status: 404}, {T: 11, Kind: "read", Status: 404}, {T: 16.5, Kind: "write", Status: 503},
			{T: 18, Kind: "read", Status: 503}, {T: 19, Kind: "read", Status: 200}}}
	upgrade.Classify(r)
	c := r.Counts
	if c.NotFoundOutside != 1 || c.NotFoundInside != 1 || c.UnavailableInside != 1 || c.UnavailableOutside != 1 || len(r.Violations) != 2 {
		t.Errorf("counts %+v, violations %v", c, r.Violations)
	}
}

// TestFaultSpansAreWindows: a 503 during a fault (or its window) is expected, after is not.
func TestFaultSpansAreWindows(t *testing.T) {
	r := &upgrade.Result{Window: 2, Faults: []upgrade.FaultSpan{{Server: "b", Start: 10, End: 13}},
		Events: []upgrade.Event{{T: 11, Kind: "read", Status: 503}, {T: 14.5, Kind: "read", Status: 503}, {T: 16, Kind: "read", Status: 503}}}
	upgrade.Classify(r)
	if r.Counts.UnavailableInside != 2 || r.Counts.UnavailableOutside != 1 {
		t.Errorf("counts %+v", r.Counts)
	}
}
