package matrix

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// emulationRuns are a real pair (v1.35.4 + v1.36.3) and its emulation (v1.36.3 as 1.35 +
// v1.36.3), with one test that agrees and three that differ, each for another reason.
func emulationRuns() ([]framework.Test, *report.Conformance, *report.Conformance) {
	tests := []framework.Test{
		{ID: "T-SAME", Since: "1.28"},
		{ID: "T-RANGE", Since: "1.36"},
		{ID: "T-DEV", Since: "1.28", Deviation: &framework.Deviation{Since: "1.36"}},
		{ID: "T-FAIL", Since: "1.28"},
	}
	real := &report.Conformance{Upstream: "started",
		Endpoints: []report.Endpoint{
			{Name: "apiserver-1", Version: "v1.35.4", Served: []string{"a/v1/as", "core/v1/pods", "x/v1/xs"}},
			{Name: "apiserver-2", Version: "v1.36.3", Served: []string{"a/v1/as", "core/v1/pods", "m/v1/ms"}},
		},
		Tests: []report.Test{
			{ID: "T-SAME", Result: report.Passed, Measurements: map[string]float64{"seconds": 0.02}},
			{ID: "T-RANGE", Result: report.Skipped, SkipKind: report.NotApplicable, SkipReason: "not applicable: applies to Kubernetes 1.36+; endpoint apiserver-1 is v1.35.4"},
			{ID: "T-DEV", Result: report.Passed, DeviationChecks: []report.DeviationCheck{{Endpoint: "apiserver-1", Version: "v1.35.4", Seen: report.DeviationAbsent}}},
			{ID: "T-FAIL", Result: report.Failed, Failure: "got 404, want 503\nthe rest of the story"},
		}}
	emulated := &report.Conformance{Upstream: "started",
		Endpoints: []report.Endpoint{
			{Name: "apiserver-1", Version: "v1.36.3", EmulationVersion: "1.35", Served: []string{"a/v1/as", "core/v1/pods", "y/v1/ys"}},
			{Name: "apiserver-2", Version: "v1.36.3", Served: []string{"a/v1/as", "core/v1/pods", "m/v1/ms"}},
		},
		Tests: []report.Test{
			{ID: "T-SAME", Result: report.Passed, Measurements: map[string]float64{"seconds": 0.03}},
			{ID: "T-RANGE", Result: report.Passed},
			{ID: "T-DEV", Result: report.Passed, KnownDeviation: "the merged view keeps the leaver's GVRs",
				DeviationChecks: []report.DeviationCheck{{Endpoint: "apiserver-1", Version: "v1.36.3", Seen: report.DeviationObserved}}},
			{ID: "T-FAIL", Result: report.Passed},
		}}
	return tests, real, emulated
}

func TestCompareEmulationExplainsEachDifference(t *testing.T) {
	tests, real, emulated := emulationRuns()
	e := CompareEmulation(tests, real, emulated)
	rows := map[string]EmulationRow{}
	for _, r := range e.Rows {
		rows[r.ID] = r
	}
	if r := rows["T-SAME"]; !r.Agree || r.Why != "" || r.Real != "passed" || r.Emulated != "passed" {
		t.Errorf("T-SAME = %+v, want both passed, agreeing, nothing to explain", r)
	}
	for id, want := range map[string][]string{
		"T-RANGE": {"real: skipped: not applicable", "emulated: passed",
			"the test applies to Kubernetes 1.36+, which includes v1.36.3 and not 1.35: the emulating server is judged by its binary's code"},
		"T-DEV": {"real: passed, its known upstream deviation looked for and absent at apiserver-1 (v1.35.4)",
			"emulated: passed with its known upstream deviation, observed at apiserver-1 (v1.36.3)",
			"the known upstream deviation is in Kubernetes 1.36+, which includes v1.36.3 and not 1.35: the emulating server runs v1.36.3's code, so it has that release's defects, not 1.35's"},
		"T-FAIL": {"real: failed: got 404, want 503", "the pairs serve different GVRs"},
	} {
		r := rows[id]
		if r.Agree {
			t.Errorf("%s agrees: %+v", id, r)
		}
		for _, w := range want {
			if !strings.Contains(r.Why, w) {
				t.Errorf("%s: why lacks %q:\n%s", id, w, r.Why)
			}
		}
	}
	if strings.Contains(rows["T-FAIL"].Why, "cause:") {
		t.Errorf("T-FAIL has no range that parts the releases, yet a cause is named: %s", rows["T-FAIL"].Why)
	}
	if got, want := rows["T-DEV"].Emulated, "deviation"; got != want {
		t.Errorf("T-DEV emulated cell = %q, want %q", got, want)
	}
	if got, want := e.Differing(), []string{"T-DEV", "T-FAIL", "T-RANGE"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Differing = %v, want %v", got, want)
	}
	wantServed := []ServedDifference{{Endpoint: "apiserver-1", OnlyReal: []string{"x/v1/xs"}, OnlyEmulated: []string{"y/v1/ys"}}}
	if !reflect.DeepEqual(e.Served, wantServed) {
		t.Errorf("Served = %+v, want %+v (apiserver-2 serves the same in both pairs)", e.Served, wantServed)
	}
	wantSkew := []SkewDifference{{GVR: "x/v1/xs", Pair: RealPair, ServedBy: []string{"apiserver-1"}}, {GVR: "y/v1/ys", Pair: EmulatedPair, ServedBy: []string{"apiserver-1"}}}
	if !reflect.DeepEqual(e.Skew, wantSkew) {
		t.Errorf("Skew = %+v, want %+v (m/v1/ms is in both pairs' skew)", e.Skew, wantSkew)
	}
	if e.RealVerdict != "failed" || e.EmulatedVerdict != "passed" {
		t.Errorf("verdicts = %s, %s; want failed, passed", e.RealVerdict, e.EmulatedVerdict)
	}

	md := e.Markdown()
	for _, w := range []string{
		"- real pair: v1.35.4 + v1.36.3", "- emulated pair: v1.36.3 as 1.35 + v1.36.3",
		"| T-SAME | passed (seconds=0.020) | passed (seconds=0.030) | yes |  |",
		"| T-RANGE | not-applicable | passed | **no** |",
		"- apiserver-1: only in the real pair: x/v1/xs; only in the emulated pair: y/v1/ys",
		"- y/v1/ys: emulated pair, served by apiserver-1",
		"emulation did not predict the real skew: 3 of 4 tests differ (T-DEV, T-FAIL, T-RANGE)",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
}

func TestCompareEmulationAgreeing(t *testing.T) {
	tests, real, _ := emulationRuns()
	real.Tests = append(real.Tests[:1], report.Test{ID: "T-LEFT-OUT", Result: report.Skipped, SkipKind: report.Deselected, SkipReason: report.NotSelected})
	emulated := *real
	emulated.Endpoints = []report.Endpoint{{Name: "apiserver-1", Version: "v1.36.3", EmulationVersion: "1.35", Served: real.Endpoints[0].Served}, real.Endpoints[1]}
	e := CompareEmulation(tests, real, &emulated)
	if len(e.Differing()) != 0 || len(e.Served) != 0 || len(e.Skew) != 0 {
		t.Errorf("identical runs differ: %+v", e)
	}
	if got := e.Summary(); !strings.HasPrefix(got, "emulation predicted the real skew: all 1 tests agree (real v1.35.4 + v1.36.3: passed") {
		t.Errorf("Summary = %q", got)
	}
	if md := e.Markdown(); !strings.Contains(md, "Every endpoint served the same GVRs as its namesake in the other pair.") {
		t.Errorf("markdown does not say the pairs served the same:\n%s", md)
	}
}
