package app

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// TestRemediesNameTheFlags: a skip reason for a missing feature, read from this CLI,
// names the flag that gives it, and a dataplane the user asked for that cannot run here
// keeps its own reason alone.
func TestRemediesNameTheFlags(t *testing.T) {
	for _, tc := range []struct {
		feature framework.Feature
		target  framework.Target
		want    string
	}{
		{framework.FeatureGateway, framework.Target{}, "(run with --gateway reference or --gateway-command)"},
		{framework.FeatureDataplane, framework.Target{}, "(run with --dataplane "},
		{framework.FeatureSkew, framework.Target{}, "with --server-flag, switch a group-version off"},
		{framework.FeatureUnprivileged, framework.Target{Endpoints: []*framework.Endpoint{{Name: "e"}}}, "(give --user-contexts with --contexts)"},
	} {
		got := framework.Test{Features: []framework.Feature{tc.feature}}.SkipReason(&tc.target)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: SkipReason = %q, want it to contain %q", tc.feature, got, tc.want)
		}
	}
	cannot := framework.Target{NoDataplane: "dataplane reference cannot run on this machine: no nft"}
	if got, want := (framework.Test{Features: []framework.Feature{framework.FeatureDataplane}}).SkipReason(&cannot), "missing Dataplane: dataplane reference cannot run on this machine: no nft"; got != want {
		t.Errorf("SkipReason = %q, want %q", got, want)
	}
}
