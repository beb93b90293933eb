package campaign

import (
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// A night of several shards needs one plan on every machine, so --shard n>1 without
// --plan-file is refused, naming both flags and the fix; one machine (--shard 1/1, make
// nightly's) needs no plan file, and --plan runs no shard.
func TestCheckNightlyFlags(t *testing.T) {
	versions := []string{"v1.35.4", "v1.36.3"}
	for _, c := range []struct {
		name string
		o    NightOptions
		plan bool   // the plan printed, no shard run
		want string // "" when the flags are fine
	}{
		{"one machine", NightOptions{Versions: versions, Shard: "1/1"}, false, ""},
		{"a shard of a plan file", NightOptions{Versions: versions, Shard: "2/4", PlanFile: "plan.json"}, false, ""},
		{"the plan printed", NightOptions{Versions: versions, Shard: "2/4"}, true, ""},
		{"a shard of a plan of its own", NightOptions{Versions: versions, Shard: "2/4"}, false, "--shard 2/4 without --plan-file"},
		{"a shard that is none", NightOptions{Versions: versions, Shard: "5/4", PlanFile: "plan.json"}, false, `--shard "5/4": want i/n`},
		{"one version", NightOptions{Versions: versions[:1], Shard: "1/1"}, false, "at least two versions"},
		{"a controller manager behind the load balancer", NightOptions{Versions: versions, Shard: "1/1", ControllerManager: "load-balancer"}, false, ""},
		{"a controller manager on the third server", NightOptions{Versions: versions, Shard: "1/1", ControllerManager: "apiserver-3"}, false, ""},
		{"a controller manager on a server no job has", NightOptions{Versions: versions, Shard: "1/1", ControllerManager: "apiserver-4"}, false, `--controller-manager "apiserver-4"`},
		{"jobs that are no expression", NightOptions{Versions: versions, Shard: "1/1", Jobs: "ranges/("}, false, `--jobs "ranges/(" is no regular expression`},
	} {
		_, _, err := checkNight(c.o, c.plan)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want the flags taken", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want refused with %q", c.name, err, c.want)
		}
	}
	if i, n, err := checkNight(NightOptions{Versions: versions, Shard: "2/4", PlanFile: "plan.json"}, false); i != 2 || n != 4 || err != nil {
		t.Errorf("--shard 2/4: shard %d/%d, %v; want 2/4", i, n, err)
	}
	_, _, err := checkNight(NightOptions{Versions: versions, Shard: "2/4"}, false)
	for _, fix := range []string{"skewcheck nightly --plan > plan.json", "--plan-file plan.json to every shard"} {
		if err == nil || !strings.Contains(err.Error(), fix) {
			t.Errorf("%v: does not say what to do (%q)", err, fix)
		}
	}
}

// A pair gets a soak job only where a soak test applies to both its versions: SOAK-001
// starts at 1.35 (peer-aggregated discovery).
func TestSoakApplies(t *testing.T) {
	for _, tc := range []struct {
		older, newer string
		want         bool
	}{
		{"v1.33.13", "v1.34.4", false},
		{"v1.34.4", "v1.35.4", false},
		{"v1.35.4", "v1.36.3", true},
		{"v1.36.3", "v1.37.2", true},
	} {
		if got := soakApplies(tc.older, tc.newer); got != tc.want {
			t.Errorf("%s + %s: soak %v, want %v", tc.older, tc.newer, got, tc.want)
		}
	}
}

// Prereleases as users write them are taken by the night's --versions, and the plan made
// of them (resolved as binaries.Resolve gives them) validates and builds their binaries.
func TestNightTakesPrereleases(t *testing.T) {
	if _, _, err := checkNight(NightOptions{Versions: []string{"1.36", "v1.37.2", "1.38.0-beta.0"}, Shard: "1/1"}, false); err != nil {
		t.Errorf("--versions with a prerelease: %v", err)
	}
	plan, err := matrix.NewPlan([]string{"v1.36.3", "v1.37.2", "v1.38.0-beta.0"}, matrix.PlanOptions{Providers: []string{"kind"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Validate(); err != nil {
		t.Errorf("a plan with a prerelease does not validate: %v", err)
	}
	var ids []string
	for _, j := range plan.Jobs {
		ids = append(ids, j.ID)
	}
	for _, want := range []string{"v1.37.2-v1.38.0-beta.0/conformance", "v1.37.2-v1.38.0-beta.0/upgrade", "v1.37.2-v1.38.0-beta.0/conformance-kind"} {
		if !slices.Contains(ids, want) {
			t.Errorf("plan jobs %q lack %s", ids, want)
		}
	}
	if got := neededVersions(plan.Jobs); !slices.Contains(got, "v1.38.0-beta.0") {
		t.Errorf("neededVersions = %q", got)
	}
}
