//go:build !incluster

package app

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Prereleases as users write them (-alpha.N, -beta.N, -rc.N, with or without the v) are
// taken by every version flag: a cluster's and conformance's --versions, upgrade's --from,
// --to and --path, the nightly's --versions (and the plan made of them).
func TestVersionFlagsTakePrereleases(t *testing.T) {
	var f serverFlags
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	f.add(cmd)
	if err := cmd.ParseFlags([]string{"--versions", "v1.37.2,1.38.0-beta.0,v1.38.0-rc.0"}); err != nil {
		t.Fatal(err)
	}
	specs, err := f.specs()
	if want := []clusters.ServerSpec{{Version: "v1.37.2"}, {Version: "1.38.0-beta.0"}, {Version: "v1.38.0-rc.0"}}; err != nil || !reflect.DeepEqual(specs, want) {
		t.Errorf("--versions specs = %+v, %v; want %+v", specs, err, want)
	}

	up := newUpgradeCommand(IOStreams{})
	if err := up.ParseFlags([]string{"--from", "v1.37.2", "--to", "v1.38.0-beta.0"}); err != nil {
		t.Fatal(err)
	}
	from, _ := up.Flags().GetString("from")
	to, _ := up.Flags().GetString("to")
	if p, err := upgradePath("", from, to, false, true); err != nil || !slices.Equal(p, []string{"v1.37.2", "v1.38.0-beta.0"}) {
		t.Errorf("--from %s --to %s: path %q, %v", from, to, p, err)
	}
	if p, err := upgradePath("v1.38.0-beta.0,v1.37.2,1.38.0-beta.0", "", "", false, false); err != nil || len(p) != 3 {
		t.Errorf("--path of prereleases: %q, %v", p, err)
	}
	if _, err := upgradePath("v1.38.0-beta.0,1.38.0-beta.0", "", "", false, false); err == nil {
		t.Error("--path v1.38.0-beta.0,1.38.0-beta.0 is one version twice, and was taken")
	}

	night := newNightlyCommand(IOStreams{})
	if err := night.ParseFlags([]string{"--versions", "1.36,v1.37.2,1.38.0-beta.0"}); err != nil {
		t.Fatal(err)
	}
	versions, _ := night.Flags().GetStringSlice("versions")
	if _, _, err := checkNightlyFlags(nightlyOptions{versions: versions, shard: "1/1"}); err != nil {
		t.Errorf("nightly --versions %v: %v", versions, err)
	}
	// The plan of a night ending on a prerelease (resolved as binaries.Resolve gives it).
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

// The console summary says when the run used a prerelease.
func TestSummaryNamesPrerelease(t *testing.T) {
	rep := &report.Conformance{Endpoints: []report.Endpoint{
		{Name: "apiserver-1", Version: "v1.37.2"}, {Name: "apiserver-2", Version: "v1.38.0-beta.0", Prerelease: true},
	}}
	var out bytes.Buffer
	printSummary(&out, rep, []string{"report.json"})
	if !strings.Contains(out.String(), "prerelease: apiserver-2 runs v1.38.0-beta.0, a Kubernetes prerelease") {
		t.Errorf("summary does not name the prerelease:\n%s", out.String())
	}
	out.Reset()
	rep.Endpoints[1] = report.Endpoint{Name: "apiserver-2", Version: "v1.38.0"}
	printSummary(&out, rep, []string{"report.json"})
	if strings.Contains(out.String(), "prerelease") {
		t.Errorf("a run of releases is summarized as a prerelease's:\n%s", out.String())
	}
}
