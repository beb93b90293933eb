package suites_test

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/suites"
)

// Every profile has a far end below its oldest test, where all its tests must skip:
// without it a night, whose adjacent supported pairs are all inside the ranges, checks
// each range from one side only. Each end is one release, named once.
func TestEveryProfileHasAnEndBelowIt(t *testing.T) {
	names := map[string]bool{}
	for _, e := range suites.RangeEnds {
		if names[e.Name] {
			t.Errorf("end %s is listed twice", e.Name)
		}
		names[e.Name] = true
		if !semver.IsValid(e.Version) || strings.Count(e.Version, ".") != 2 {
			t.Errorf("end %s: version %q is no release vX.Y.Z", e.Name, e.Version)
		}
	}
	oldest := map[string]string{} // profile: its oldest test's Since
	for _, tc := range suites.All() {
		if s, ok := oldest[tc.Profile]; !ok || framework.CompareMinor(tc.Since, s) < 0 {
			oldest[tc.Profile] = tc.Since
		}
	}
	for profile, since := range oldest {
		if !slices.ContainsFunc(suites.RangeEnds, func(e matrix.RangeEnd) bool {
			return slices.Contains(strings.Split(e.Profiles, ","), profile) && !framework.InRange(e.Version, since, "")
		}) {
			t.Errorf("profile %s (from %s) has no far end below it: add one to suites.RangeEnds", profile, since)
		}
	}
}
