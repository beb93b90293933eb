package framework

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// TestSkipReasonKinds: a version outside the test's range is "not applicable"; anything
// else the target lacks is "missing <Feature>", a registration it does not declare too.
func TestSkipReasonKinds(t *testing.T) {
	tg := threeVersions()
	cases := []struct {
		name          string
		test          Test
		mutate        func(*Target)
		notApplicable bool
		prefix        string
	}{
		{"before the range", Test{Since: "1.35"}, func(*Target) {}, true, "not applicable: applies to Kubernetes 1.35+"},
		{"after the range", Test{Until: "1.34"}, func(*Target) {}, true, "not applicable: applies to Kubernetes up to 1.34"},
		{"no registration declared", Test{Features: []Feature{FeatureRegistration}}, func(t *Target) { t.Upstream = false }, false, "missing Registration: the target"},
		{"no node control", Test{Features: []Feature{FeatureNodeControl}}, func(t *Target) { t.Endpoints[0].Node = nil }, false, "missing NodeControl: "},
		{"no dataplane", Test{Features: []Feature{FeatureDataplane}}, func(*Target) {}, false, "missing Dataplane: "},
		{"no skew", Test{Features: []Feature{FeatureSkew}}, func(t *Target) { t.Endpoints = t.Endpoints[:2] }, false, "missing Skew: every endpoint serves the same GVRs"},
		{"no skewed status", Test{Features: []Feature{FeatureSkewedStatus}}, func(*Target) {}, false,
			"missing SkewedStatus: no GVR one endpoint lacks and another serves has a status subresource"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := threeVersions()
			*target = *tg
			target.Endpoints = append([]*Endpoint(nil), tg.Endpoints...)
			for i, e := range target.Endpoints {
				c := *e
				target.Endpoints[i] = &c
			}
			tc.mutate(target)
			got := tc.test.SkipReason(target)
			if !strings.HasPrefix(got, tc.prefix) {
				t.Errorf("SkipReason = %q, want it to start with %q", got, tc.prefix)
			}
			if IsNotApplicable(got) != tc.notApplicable {
				t.Errorf("IsNotApplicable(%q) = %v, want %v", got, !tc.notApplicable, tc.notApplicable)
			}
		})
	}
}

// TestSkewedStatusNamesWhatIsSkewed: when the only skew is a GVR skewcheck cannot create
// (deviceclasses on 1.33 + 1.34 before there was a fixture; here a made-up one), the
// reason names every skewed GVR by group/version/resource and says which lack a fixture.
func TestSkewedStatusNamesWhatIsSkewed(t *testing.T) {
	gadgets := discovery.GVR{Group: "example.com", Version: "v1", Resource: "gadgets", Kind: "Gadget", Verbs: []string{"create", "get", "list"}, Subresources: []string{"status"}}
	tg := target(set(gvrPods), set(gvrPods, gadgets, gvrMAPB))
	got := Test{Features: []Feature{FeatureSkew, FeatureSkewedStatus}}.SkipReason(tg)
	for _, want := range []string{"missing SkewedStatus", "example.com/v1/gadgets (skewcheck has no fixture for it)", gvrMAPB.Key()} {
		if !strings.Contains(got, want) {
			t.Errorf("SkipReason %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, gvrMAPB.Key()+" (") {
		t.Errorf("SkipReason %q says %s has no fixture", got, gvrMAPB.Key())
	}
	// With jobs skewed (a fixture with a status subresource) the test applies.
	tg = target(set(gvrPods), set(gvrPods, gvrJobs))
	if got := (Test{Features: []Feature{FeatureSkewedStatus}}).SkipReason(tg); got != "" {
		t.Errorf("SkipReason = %q with jobs/status skewed, want none", got)
	}
	if rs := StatusRoutes(tg); len(rs) != 1 || rs[0].GVR.Key() != gvrJobs.Key() {
		t.Errorf("StatusRoutes = %v, want the jobs route", rs)
	}
}

// TestRoutesPrintAsGVRs: a message that prints routes (with %v, as a failure does) names
// each by group/version/resource and endpoint names, never by Go pointers.
func TestRoutesPrintAsGVRs(t *testing.T) {
	tg := target(set(gvrPods), set(gvrPods, gvrJobs, gvrMAPB))
	got := fmt.Sprintf("%v", SkewedGVRs(tg))
	want := "[admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings: apiserver-1 -> apiserver-2 batch/v1/jobs: apiserver-1 -> apiserver-2]"
	if got != want {
		t.Errorf("%%v of routes = %s, want %s", got, want)
	}
	if strings.Contains(got, "0x") {
		t.Errorf("routes print pointers: %s", got)
	}
	msg := NoRoutes(tg, "deletecollection")
	for _, want := range []string{"supports deletecollection", "skewed: " + gvrMAPB.Key() + ", " + gvrJobs.Key()} {
		if !strings.Contains(msg, want) {
			t.Errorf("NoRoutes = %q, lacks %q", msg, want)
		}
	}
}

// remedyProbe is a feature of TestRemedyEndsAReason's own, declared once per test binary.
var remedyProbe = DeclareFeature("RemedyProbe", func(t *Target) string {
	if t.Unowned {
		return NotHere("never here")
	}
	return t.NoDataplane
})

// TestRemedyEndsAReason: a program's remedy ends the reason of a missing feature, not a
// NotHere one, and a remedy that returns "" adds nothing.
func TestRemedyEndsAReason(t *testing.T) {
	probe := remedyProbe
	SetRemedy(probe, func(t *Target) string {
		if t.NoDataplane == "asked for, cannot run" {
			return ""
		}
		return "run with --probe"
	})
	defer delete(remedies, probe)
	for _, tc := range []struct {
		target Target
		want   string
	}{
		{Target{NoDataplane: "no probe"}, "missing RemedyProbe: no probe (run with --probe)"},
		{Target{NoDataplane: "asked for, cannot run"}, "missing RemedyProbe: asked for, cannot run"},
		{Target{Unowned: true, NoDataplane: "no probe"}, "not applicable: needs RemedyProbe, which never here"},
		{Target{}, ""},
	} {
		if got := (Test{Features: []Feature{probe}}).SkipReason(&tc.target); got != tc.want {
			t.Errorf("SkipReason = %q, want %q", got, tc.want)
		}
	}
}
