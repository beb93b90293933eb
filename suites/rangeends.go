package suites

import (
	"cmp"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
)

// RangeEnds are the runs at the far ends of the tests' version ranges, which a night's
// adjacent supported pairs never reach: each is one release twice, and each profile has an
// end below its oldest test (TestEveryProfileHasAnEndBelowIt), so that every range is seen
// from both sides (matrix.CheckRanges). The nightly runs each as a job (ranges/<Name>),
// and make ranges runs them alone. They are the profiles' FarEnds, in the order of their
// releases.
var RangeEnds = rangeEnds(Profiles)

// rangeEnds groups the far ends of profiles by release: the profiles of a release share
// its run, named by the release, except a profile whose tests need a gateway or a
// dataplane, which gets a run of its own with skewcheck's reference in it, named
// <release>-<profile> (a gateway run tests the gateway's endpoints only).
func rangeEnds(profiles []framework.Profile) []matrix.RangeEnd {
	var out []matrix.RangeEnd
	for _, p := range profiles {
		for _, v := range p.FarEnds {
			name := v
			if p.NeedsGateway() || p.NeedsDataplane() {
				name += "-" + p.Name
			}
			if i := slices.IndexFunc(out, func(e matrix.RangeEnd) bool { return e.Name == name }); i >= 0 {
				out[i].Profiles += "," + p.Name
				continue
			}
			out = append(out, matrix.RangeEnd{Name: name, Version: v, Profiles: p.Name})
		}
	}
	slices.SortStableFunc(out, func(a, b matrix.RangeEnd) int {
		return cmp.Or(semver.Compare(a.Version, b.Version), strings.Compare(a.Name, b.Name))
	})
	return out
}
