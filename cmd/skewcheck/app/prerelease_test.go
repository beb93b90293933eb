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
	// The versions as given: the night's check and plan of them are campaign's
	// (TestNightTakesPrereleases).
	if versions, _ := night.Flags().GetStringSlice("versions"); !slices.Equal(versions, []string{"1.36", "v1.37.2", "1.38.0-beta.0"}) {
		t.Errorf("nightly --versions = %q", versions)
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
