package framework

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// fakeNode satisfies Node; the tests here never call it.
type fakeNode struct{}

func (fakeNode) Stop(time.Duration) error        { return nil }
func (fakeNode) Kill() error                     { return nil }
func (fakeNode) Freeze() error                   { return nil }
func (fakeNode) Thaw() error                     { return nil }
func (fakeNode) Start(ctx context.Context) error { return nil }

var (
	gvrPods     = discovery.GVR{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"create", "get", "list"}}
	gvrCM       = discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: []string{"create", "delete", "get", "list"}}
	gvrJobs     = discovery.GVR{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Verbs: []string{"create", "delete", "get", "list", "patch"}, Subresources: []string{"status"}}
	gvrCronJobs = discovery.GVR{Group: "batch", Version: "v1", Resource: "cronjobs", Kind: "CronJob", Namespaced: true, Verbs: []string{"create", "get"}}
	gvrMAPB     = discovery.GVR{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings", Kind: "MutatingAdmissionPolicyBinding", Verbs: []string{"create", "get", "list"}}
	gvrLeases   = discovery.GVR{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true, Verbs: []string{"get", "list"}} // no create
)

func set(gs ...discovery.GVR) discovery.Set {
	s := discovery.Set{}
	for _, g := range gs {
		s[g.Key()] = g
	}
	return s
}

// fullEndpoint has every feature: a node, an audit log and an unprivileged identity.
func fullEndpoint(name, version string, served discovery.Set) *Endpoint {
	return &Endpoint{
		Name: name, Version: version, Served: served,
		Admin: &rest.Config{Host: "https://" + name}, User: &rest.Config{Host: "https://" + name},
		AuditLog: "/tmp/" + name + "/audit.log", Node: fakeNode{},
	}
}

// threeVersions is an upstream target of v1.34.2, v1.35.4 and v1.36.3 with every feature
// and a skew (only the newest serves mutatingadmissionpolicybindings).
func threeVersions() *Target {
	return &Target{
		Kind:     "local",
		Upstream: true,
		Endpoints: []*Endpoint{
			fullEndpoint("apiserver-1", "v1.34.2", set(gvrPods, gvrCM)),
			fullEndpoint("apiserver-2", "v1.35.4", set(gvrPods, gvrCM)),
			fullEndpoint("apiserver-3", "v1.36.3", set(gvrPods, gvrCM, gvrMAPB)),
		},
	}
}

func TestVersionRange(t *testing.T) {
	cases := []struct{ since, until, want string }{
		{"", "", "all"},
		{"1.35", "", "1.35+"},
		{"", "1.34", "up to 1.34"},
		{"1.28", "1.34", "1.28-1.34"},
		{"1.36", "1.36", "1.36-1.36"},
	}
	for _, tc := range cases {
		if got := (Test{Since: tc.since, Until: tc.until}).VersionRange(); got != tc.want {
			t.Errorf("VersionRange(%q, %q) = %q, want %q", tc.since, tc.until, got, tc.want)
		}
	}
}

func TestInRange(t *testing.T) {
	cases := []struct {
		version, since, until string
		want                  bool
	}{
		{"v1.36.3", "", "", true},
		{"v1.36.3", "1.36", "", true},
		{"v1.36.0", "1.36", "1.36", true},
		{"v1.35.4", "1.36", "", false},
		{"v1.36.3", "", "1.35", false},
		{"v1.35.99", "", "1.35", true}, // patch releases are within their minor
		{"1.35.4", "1.35", "1.35", true},
		{"v1.36.0-rc.1", "1.36", "", true},
		{"v1.36.3", "v1.28", "v1.36", true},
		{"v1.100.0", "1.36", "", true}, // numeric, not lexical
		{"v1.9.0", "1.28", "", false},
		// A prerelease is its minor: 1.38.0-beta.0 is 1.38.
		{"v1.38.0-beta.0", "1.36", "1.38", true},
		{"1.38.0-beta.0", "1.38", "1.38", true},
		{"v1.38.0-alpha.1", "1.38", "", true},
		{"v1.38.0-rc.0", "", "1.37", false},
		{"v1.38.0-beta.0", "", "1.37", false},
		{"v1.38.0-beta.0", "1.39", "", false},
		{"v1.38.0-beta.0", "", "v1.38.0-beta.0", true}, // a bound is a minor, however written
	}
	for _, tc := range cases {
		if got := InRange(tc.version, tc.since, tc.until); got != tc.want {
			t.Errorf("InRange(%q, %q, %q) = %v, want %v", tc.version, tc.since, tc.until, got, tc.want)
		}
	}
}

// CompareMinor and CompareVersions on prereleases: the minor alone, and semver's order
// (a prerelease before its release); IsPrerelease knows Kubernetes' forms from a
// distribution's suffix.
func TestPrereleaseVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"v1.38.0-beta.0", "1.38", 0},
		{"1.38.0-beta.0", "v1.38.0", 0},
		{"v1.38.0-beta.0", "1.37", 1},
		{"v1.37.2", "v1.38.0-alpha.1", -1},
	} {
		if got := CompareMinor(c.a, c.b); got != c.want {
			t.Errorf("CompareMinor(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if CompareVersions("v1.38.0-beta.0", "v1.38.0") >= 0 || CompareVersions("v1.38.0-beta.0", "v1.37.2") <= 0 ||
		CompareVersions("1.38.0-beta.0", "v1.38.0-beta.0") != 0 || CompareVersions("v1.38.0-alpha.1", "v1.38.0-beta.0") >= 0 {
		t.Error("CompareVersions does not order prereleases as semver does")
	}
	for v, want := range map[string]bool{
		"v1.38.0-beta.0": true, "1.38.0-beta.0": true, "v1.38.0-alpha.1": true, "v1.38.0-rc.0": true,
		"v1.38.0-beta.0.12+0123abcd": true, "v1.38.0": false, "v1.30.2-eks-a1b2c3": false,
		"v1.30.2+k3s1": false, "v1.38.0-beta": false, "": false, "banana": false,
	} {
		if got := IsPrerelease(v); got != want {
			t.Errorf("IsPrerelease(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestSkipReasonVersions(t *testing.T) {
	cases := []struct {
		name         string
		since, until string
		want         []string // substrings; none means it applies
	}{
		{"open", "", "", nil},
		{"since 1.35 skips the 1.34 endpoint", "1.35", "", []string{"1.35+", "apiserver-1", "v1.34.2"}},
		{"since 1.34 applies", "1.34", "", nil},
		{"1.28-1.34 skips the 1.35 endpoint", "1.28", "1.34", []string{"1.28-1.34", "apiserver-2", "v1.35.4"}},
		{"up to 1.36 applies", "", "1.36", nil},
		{"up to 1.35 skips the 1.36 endpoint", "", "1.35", []string{"up to 1.35", "apiserver-3", "v1.36.3"}},
		{"since 1.37 skips", "1.37", "", []string{"1.37+", "apiserver-1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Test{ID: "T-1", Since: tc.since, Until: tc.until}.SkipReason(threeVersions())
			if len(tc.want) == 0 {
				if got != "" {
					t.Errorf("SkipReason = %q, want none", got)
				}
				return
			}
			if got == "" {
				t.Fatalf("SkipReason is empty, want one mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("SkipReason %q does not mention %q", got, w)
				}
			}
		})
	}
}

func TestSkipReasonFeatures(t *testing.T) {
	cases := []struct {
		name    string
		feature Feature
		mutate  func(*Target)
		want    []string // substrings; none means it applies
	}{
		{"node control present", FeatureNodeControl, func(*Target) {}, nil},
		{"node control missing", FeatureNodeControl, func(t *Target) { t.Endpoints[1].Node = nil }, []string{"NodeControl", "apiserver-2"}},
		{"audit log present", FeatureAuditLog, func(*Target) {}, nil},
		{"audit log missing", FeatureAuditLog, func(t *Target) { t.Endpoints[2].AuditLog = "" }, []string{"AuditLog", "apiserver-3"}},
		{"unprivileged present", FeatureUnprivileged, func(*Target) {}, nil},
		{"unprivileged missing", FeatureUnprivileged, func(t *Target) { t.Endpoints[0].User = nil }, []string{"Unprivileged", "apiserver-1"}},
		{"skew present", FeatureSkew, func(*Target) {}, nil},
		{"no skew", FeatureSkew, func(t *Target) {
			for _, e := range t.Endpoints {
				e.Served = set(gvrPods, gvrCM)
			}
		}, []string{"Skew", "same GVRs"}},
		{"a single endpoint has no skew", FeatureSkew, func(t *Target) { t.Endpoints = t.Endpoints[2:] }, []string{"Skew"}},
		{"an undeclared feature is a skip saying so", Feature("Other"), func(*Target) {}, []string{"Other", "DeclareFeature"}},
		{"a feature declared outside the core", featureOfATest, func(*Target) {}, []string{"OfATest", "the test's own"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := threeVersions()
			tc.mutate(target)
			got := Test{ID: "T-1", Features: []Feature{tc.feature}}.SkipReason(target)
			if len(tc.want) == 0 {
				if got != "" {
					t.Errorf("SkipReason = %q, want none", got)
				}
				return
			}
			if got == "" {
				t.Fatalf("SkipReason is empty, want one mentioning %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("SkipReason %q does not mention %q", got, w)
				}
			}
		})
	}
}

func TestSkipReasonVersionBeforeFeatures(t *testing.T) {
	target := threeVersions()
	target.Endpoints[0].Node = nil
	got := Test{Since: "1.35", Features: []Feature{FeatureNodeControl}}.SkipReason(target)
	if !strings.Contains(got, "applies to Kubernetes 1.35+") {
		t.Errorf("SkipReason = %q, want the version reason first", got)
	}
	got = Test{Features: []Feature{FeatureAuditLog, FeatureNodeControl}}.SkipReason(target)
	if !strings.Contains(got, "NodeControl") {
		t.Errorf("SkipReason = %q, want the missing NodeControl", got)
	}
}

// The allowance is decided per observation: the endpoint that showed the behaviour must be
// in the range (not just any endpoint of the target), the target upstream, and the
// observation the one the deviation names.
func TestDeviationAllowance(t *testing.T) {
	only401 := func(o Observation) bool { return o.Status == 401 }
	dev := func(since, until string) *Deviation {
		return &Deviation{Since: since, Until: until, Summary: "s", Allowed: "a 401", Allows: only401}
	}
	old, newer := fullEndpoint("apiserver-1", "v1.34.2", nil), fullEndpoint("apiserver-2", "v1.36.3", nil)
	beta := fullEndpoint("apiserver-3", "v1.38.0-beta.0", nil)
	cases := []struct {
		name      string
		deviation *Deviation
		upstream  bool
		obs       Observation
		want      string // "" when allowed, else a word of the reason
	}{
		{"allowed", dev("1.28", "1.36"), true, Observation{At: newer, Status: 401}, ""},
		{"no deviation", nil, true, Observation{At: newer, Status: 401}, "no known deviation"},
		{"not upstream", dev("1.28", "1.36"), false, Observation{At: newer, Status: 401}, "only to upstream"},
		{"seen at an endpoint out of range, another in it", dev("", "1.34"), true, Observation{At: newer, Status: 401}, "outside the deviation's range"},
		{"seen at the endpoint in range", dev("", "1.34"), true, Observation{At: old, Status: 401}, ""},
		// A prerelease is its minor: a deviation up to 1.37 does not cover 1.38.0-beta.0,
		// one of 1.38 (or open) does.
		{"a prerelease above the range", dev("1.28", "1.37"), true, Observation{At: beta, Status: 401}, "outside the deviation's range"},
		{"a prerelease at the range's end", dev("1.28", "1.38"), true, Observation{At: beta, Status: 401}, ""},
		{"a prerelease in an open range", dev("1.36", ""), true, Observation{At: beta, Status: 401}, ""},
		{"another status", dev("", ""), true, Observation{At: newer, Status: 404}, "allows only a 401"},
		{"no endpoint", dev("", ""), true, Observation{Status: 401}, "names no endpoint"},
		{"no predicate", &Deviation{Summary: "s"}, true, Observation{At: newer, Status: 401}, "allows only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := &Target{Upstream: tc.upstream, Kind: "reference:peerproxy", Endpoints: []*Endpoint{old, newer}}
			ok, why := (Test{Deviation: tc.deviation}).allowance(target, tc.obs)
			if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
				t.Errorf("allowance = %v %q, want %q", ok, why, tc.want)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	tests := []Test{
		{ID: "MVP-001", Profile: "mvp"},
		{ID: "DISC-001", Profile: "discovery"},
		{ID: "MVP-002", Profile: "mvp"},
		{ID: "CHAOS-001", Profile: "chaos"},
	}
	ids := func(ts []Test) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	cases := []struct {
		name     string
		profiles []string
		want     []string
		wantErr  []string
	}{
		{"one profile", []string{"mvp"}, []string{"MVP-001", "MVP-002"}, nil},
		{"registry order, not profile order", []string{"discovery", "mvp"}, []string{"MVP-001", "DISC-001", "MVP-002"}, nil},
		{"duplicates", []string{"chaos", "chaos"}, []string{"CHAOS-001"}, nil},
		{"none", nil, nil, nil},
		{"unknown", []string{"mvp", "nosuch"}, nil, []string{`unknown profile "nosuch"`, "chaos, discovery, mvp"}},
		{"case matters", []string{"MVP"}, nil, []string{`unknown profile "MVP"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Select(tests, tc.profiles)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Select = %v, want an error", ids(got))
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ids(got), tc.want) {
				t.Errorf("Select = %v, want %v", ids(got), tc.want)
			}
		})
	}
}

type route struct{ entry, peer, gvr string }

func routes(rs []Route) []route {
	out := []route{}
	for _, r := range rs {
		out = append(out, route{r.Entry.Name, r.Peer.Name, r.GVR.Key()})
	}
	return out
}

func target(served ...discovery.Set) *Target {
	t := &Target{Upstream: true}
	for i, s := range served {
		t.Endpoints = append(t.Endpoints, fullEndpoint("apiserver-"+string(rune('1'+i)), "v1.36.3", s))
	}
	return t
}

func TestSkewedGVRs(t *testing.T) {
	cases := []struct {
		name   string
		target *Target
		want   []route
	}{
		{"no endpoints", &Target{}, []route{}},
		{"same sets", target(set(gvrPods, gvrCM), set(gvrCM, gvrPods)), []route{}},
		{"new serves one more", target(set(gvrPods), set(gvrPods, gvrMAPB)), []route{
			{"apiserver-1", "apiserver-2", gvrMAPB.Key()},
		}},
		{"both ways, sorted by entry then key", target(set(gvrPods, gvrJobs, gvrCM), set(gvrPods, gvrMAPB, gvrCronJobs)), []route{
			{"apiserver-1", "apiserver-2", gvrMAPB.Key()},
			{"apiserver-1", "apiserver-2", gvrCronJobs.Key()},
			{"apiserver-2", "apiserver-1", gvrJobs.Key()},
			{"apiserver-2", "apiserver-1", gvrCM.Key()},
		}},
		{"first serving peer in endpoint order", target(set(gvrPods), set(gvrPods, gvrJobs), set(gvrPods, gvrJobs)), []route{
			{"apiserver-1", "apiserver-2", gvrJobs.Key()},
		}},
		{"an empty endpoint misses everything", target(discovery.Set{}, set(gvrPods, gvrCM)), []route{
			{"apiserver-1", "apiserver-2", gvrCM.Key()},
			{"apiserver-1", "apiserver-2", gvrPods.Key()},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 10; i++ { // stable despite random map order
				if got := routes(SkewedGVRs(tc.target)); !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("SkewedGVRs = %v, want %v", got, tc.want)
				}
			}
		})
	}
	// The route carries the peer's GVR, with its verbs and kind.
	rs := SkewedGVRs(target(set(gvrPods), set(gvrPods, gvrJobs)))
	if len(rs) != 1 || !reflect.DeepEqual(rs[0].GVR, gvrJobs) {
		t.Errorf("route GVR = %+v, want %+v", rs, gvrJobs)
	}
}

func TestRoutes(t *testing.T) {
	// apiserver-1 lacks MAPB (fixture), cronjobs (no fixture) and leases (fixture, no create);
	// apiserver-2 lacks jobs (fixture, status subresource) and configmaps (fixture, create+delete).
	tg := target(
		set(gvrPods, gvrJobs, gvrCM),
		set(gvrPods, gvrMAPB, gvrCronJobs, gvrLeases),
	)
	cases := []struct {
		name  string
		verbs []string
		want  []route
	}{
		{"no verbs: every route with a fixture", nil, []route{
			{"apiserver-1", "apiserver-2", gvrMAPB.Key()},
			{"apiserver-1", "apiserver-2", gvrLeases.Key()},
			{"apiserver-2", "apiserver-1", gvrJobs.Key()},
			{"apiserver-2", "apiserver-1", gvrCM.Key()},
		}},
		{"create", []string{"create"}, []route{
			{"apiserver-1", "apiserver-2", gvrMAPB.Key()},
			{"apiserver-2", "apiserver-1", gvrJobs.Key()},
			{"apiserver-2", "apiserver-1", gvrCM.Key()},
		}},
		{"create and delete", []string{"create", "delete"}, []route{
			{"apiserver-2", "apiserver-1", gvrJobs.Key()},
			{"apiserver-2", "apiserver-1", gvrCM.Key()},
		}},
		{"patch", []string{"create", "patch"}, []route{
			{"apiserver-2", "apiserver-1", gvrJobs.Key()},
		}},
		{"nothing can", []string{"deletecollection"}, []route{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := routes(Routes(tg, tc.verbs...)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Routes(%v) = %v, want %v", tc.verbs, got, tc.want)
			}
		})
	}
}

func TestTargetEndpoint(t *testing.T) {
	tg := threeVersions()
	if e := tg.Endpoint("apiserver-2"); e == nil || e.Version != "v1.35.4" {
		t.Errorf("Endpoint(apiserver-2) = %+v", e)
	}
	if e := tg.Endpoint("apiserver-9"); e != nil {
		t.Errorf("Endpoint(apiserver-9) = %+v, want nil", e)
	}
}

// featureOfATest is declared as any package beside its domain would declare one.
var featureOfATest = DeclareFeature("OfATest", func(*Target) string { return "the test's own reason" })

func TestDeclareFeatureTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second declaration of OfATest did not panic")
		}
	}()
	DeclareFeature("OfATest", func(*Target) string { return "" })
}

// capabilityOfATest is what a fault of a test acts on, which no test needs of a target.
var capabilityOfATest = DeclareCapability("CapabilityOfATest", "a capability of a test")

// TestCapabilityWords: a capability is said in its words, a feature worded otherwise in
// its own, any other by its name; a capability is no feature a user may accept missing,
// and its name is taken for features too.
func TestCapabilityWords(t *testing.T) {
	if w := capabilityOfATest.Words(); w != "a capability of a test" {
		t.Errorf("the capability's words: %q", w)
	}
	if w := FeatureNodeControl.Words(); w != "process control" {
		t.Errorf("NodeControl's words: %q", w)
	}
	if w := FeatureAuditLog.Words(); w != "AuditLog" {
		t.Errorf("AuditLog's words: %q, want its name", w)
	}
	if slices.Contains(Features(), capabilityOfATest) {
		t.Errorf("Features() %v lists a capability no test needs", Features())
	}
	defer func() {
		if recover() == nil {
			t.Error("a feature of a capability's name did not panic")
		}
	}()
	DeclareFeature("CapabilityOfATest", func(*Target) string { return "" })
}

// TestMissingFeatureOf: the feature a Missing skip reason names is read back from it, and
// no other reason names one.
func TestMissingFeatureOf(t *testing.T) {
	if f, ok := MissingFeatureOf(Missing("AuditLog", "no audit log is readable")); !ok || f != "AuditLog" {
		t.Errorf("MissingFeatureOf(Missing(AuditLog, ...)) = %q, %v", f, ok)
	}
	for _, reason := range []string{"", NotHere("no node control"), "missing", "missing : x", "missing two words: x", "the creatable GVR is missing: x"} {
		if f, ok := MissingFeatureOf(reason); ok {
			t.Errorf("MissingFeatureOf(%q) = %q, want none", reason, f)
		}
	}
}
