package suites

import (
	"fmt"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// Profiles at one release share its run; one that needs a gateway or a dataplane runs
// apart, named after it; the runs are in the order of their releases.
func TestRangeEndsGroupByRelease(t *testing.T) {
	plain := func(name string, ends ...string) framework.Profile {
		return framework.Profile{Name: name, FarEnds: ends, Tests: []framework.Test{{ID: name, Profile: name}}}
	}
	gw := plain("gw", "v1.27.16")
	gw.Tests[0].Features = []framework.Feature{framework.FeatureGateway}
	dp := plain("dp", "v1.29.15")
	dp.Tests = append(dp.Tests, framework.Test{ID: "dp2", Profile: "dp", Features: []framework.Feature{framework.FeatureDataplane}})
	got := fmt.Sprint(rangeEnds([]framework.Profile{plain("a", "v1.32.13", "v1.27.16"), gw, dp, plain("b", "v1.27.16", "v1.9.0")}))
	want := "[{v1.9.0 v1.9.0 b} {v1.27.16 v1.27.16 a,b} {v1.27.16-gw v1.27.16 gw} {v1.29.15-dp v1.29.15 dp} {v1.32.13 v1.32.13 a}]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
