package framework

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/report"
)

// recordingT stands in for *testing.T in the one ginkgo run of this package, whose specs
// fail on purpose: their outcomes are read from the report, not from the test binary.
type recordingT struct{ failed bool }

func (r *recordingT) Fail() { r.failed = true }

// TestDeviationRegions runs deviation regions through ginkgo against a fake upstream target
// of v1.34.2 and v1.36.3, and reads each test's verdict from the report: only the observation
// the deviation names, at an endpoint in its range, passes as the deviation; a failure of
// any other kind inside the region (the wrong status, an error, an observation at an
// endpoint out of range) fails the test, and a region that holds is reported absent.
func TestDeviationRegions(t *testing.T) {
	old, newer := &Endpoint{Name: "apiserver-1", Version: "v1.34.2"}, &Endpoint{Name: "apiserver-2", Version: "v1.36.3"}
	target := &Target{Kind: "local", Upstream: true, Endpoints: []*Endpoint{old, newer}}
	upTo134 := &Deviation{Since: "1.33", Until: "1.34", Summary: "the peer does not see the user", Allowed: "a 401",
		Allows: func(o Observation) bool { return o.Status == 401 }}
	region := func(at *Endpoint, status int, more func()) func(context.Context, *Env) {
		return func(_ context.Context, env *Env) {
			env.Deviation(Observation{At: at, Status: status}, func() {
				Expect(status).To(Equal(101), "a websocket watch through %s", at.Name)
				if more != nil {
					more()
				}
			})
		}
	}
	unrelated := func() { Expect("connection reset").To(BeEmpty(), "an unrelated failure") }
	tests := []Test{
		{ID: "T-observed", Profile: "p", Deviation: upTo134, Run: region(old, 401, nil)},
		{ID: "T-other-status", Profile: "p", Deviation: upTo134, Run: region(old, 404, nil)},
		{ID: "T-out-of-range", Profile: "p", Deviation: upTo134, Run: region(newer, 401, nil)},
		{ID: "T-absent", Profile: "p", Deviation: upTo134, Run: region(old, 101, nil)},
		{ID: "T-unrelated-in-region", Profile: "p", Deviation: upTo134, Run: region(old, 101, unrelated)},
		{ID: "T-no-deviation", Profile: "p", Run: region(old, 401, nil)},
	}
	rt := &recordingT{}
	rep := Run(rt, &Env{Target: target, Timeouts: DefaultTimeouts()}, tests, RunOptions{Seed: 1})
	want := map[string]struct {
		result report.Result
		seen   string // the deviation check recorded, "" for none
		why    string // in the failure
	}{
		"T-observed":            {report.Passed, report.DeviationObserved, ""},
		"T-other-status":        {report.Failed, "", "allows only a 401"},
		"T-out-of-range":        {report.Failed, "", "apiserver-2, where it was seen, is v1.36.3, outside the deviation's range 1.33-1.34"},
		"T-absent":              {report.Passed, report.DeviationAbsent, ""},
		"T-unrelated-in-region": {report.Failed, "", "an unrelated failure"},
		"T-no-deviation":        {report.Failed, "", "no known deviation"},
	}
	if len(rep.Tests) != len(want) {
		t.Fatalf("%d tests in the report, want %d: %+v", len(rep.Tests), len(want), rep.Tests)
	}
	for _, got := range rep.Tests {
		w := want[got.ID]
		if got.Result != w.result || !strings.Contains(got.Failure, w.why) {
			t.Errorf("%s: %s %q, want %s with %q", got.ID, got.Result, got.Failure, w.result, w.why)
		}
		if (got.KnownDeviation != "") != (w.seen == report.DeviationObserved) {
			t.Errorf("%s: known deviation %q", got.ID, got.KnownDeviation)
		}
		var seen string
		for _, c := range got.DeviationChecks {
			seen = c.Seen
			if c.Endpoint != old.Name || c.Version != old.Version {
				t.Errorf("%s: check at %s %s, want %s %s", got.ID, c.Endpoint, c.Version, old.Name, old.Version)
			}
		}
		if seen != w.seen || len(got.DeviationChecks) > 1 {
			t.Errorf("%s: deviation checks %+v, want one %q", got.ID, got.DeviationChecks, w.seen)
		}
	}
	if !rt.failed {
		t.Error("ginkgo did not report the run as failed, although four specs failed")
	}
}
