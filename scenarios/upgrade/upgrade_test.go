package upgrade_test

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestRollingUpgradeUnderLoad: three servers from the old to the new version under load;
// the proxy must keep every served resource reachable outside the step windows, lose no
// acknowledged write, and every watch must resume after its server's upgrade.
func TestRollingUpgradeUnderLoad(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	var progress strings.Builder
	r, err := upgrade.Run(context.Background(), upgrade.Options{From: oldV, To: newV, Servers: 3, Seed: 3,
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
	var doc struct{ XMLName xml.Name }
	if err := xml.Unmarshal([]byte(r.SVG()), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Errorf("the timeline is not an SVG document: %v", err)
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
