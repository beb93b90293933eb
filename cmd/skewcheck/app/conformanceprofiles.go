package app

import (
	"slices"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// profilesNotAllNeeding are those of profiles with a test that does not need feature.
func profilesNotAllNeeding(profiles []string, feature framework.Feature) []string {
	tests, _ := framework.Select(suites.All(), profiles)
	var out []string
	for _, t := range tests {
		if !slices.Contains(t.Features, feature) && !slices.Contains(out, t.Profile) {
			out = append(out, t.Profile)
		}
	}
	return out
}

// profilesAllNeeding are the profiles whose every test needs feature.
func profilesAllNeeding(feature framework.Feature) []string {
	var all []string
	for _, t := range suites.All() {
		if !slices.Contains(all, t.Profile) {
			all = append(all, t.Profile)
		}
	}
	not := profilesNotAllNeeding(all, feature)
	return slices.DeleteFunc(all, func(p string) bool { return slices.Contains(not, p) })
}

// needsFeature says whether a test of the profiles needs feature.
func needsFeature(profiles []string, feature framework.Feature) bool {
	tests, _ := framework.Select(suites.All(), profiles) // the profiles were checked by runConformance
	for _, t := range tests {
		if slices.Contains(t.Features, feature) {
			return true
		}
	}
	return false
}
