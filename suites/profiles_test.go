package suites_test

import (
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// Every profile is valid data, named once, and every test is one of a listed profile's.
func TestProfilesAreOneListOfValidValues(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range suites.Profiles {
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
		if seen[p.Name] {
			t.Errorf("profile %s is listed twice in suites.Profiles", p.Name)
		}
		seen[p.Name] = true
		if p.MutationFamily == "" {
			t.Errorf("profile %s names no mutation family: which deliberately wrong variants must its tests catch?", p.Name)
		}
		if got, ok := suites.Lookup(p.Name); !ok || got.Name != p.Name {
			t.Errorf("Lookup(%q) = %q, %v", p.Name, got.Name, ok)
		}
	}
	if _, ok := suites.Lookup("no-such-profile"); ok {
		t.Error("Lookup found a profile that is not listed")
	}
	for _, tc := range suites.All() {
		if !seen[tc.Profile] {
			t.Errorf("%s is of profile %q, which suites.Profiles does not list", tc.ID, tc.Profile)
		}
	}
	if len(suites.DefaultProfiles) == 0 || len(suites.PeerProfiles) == 0 || len(suites.SoakProfiles) == 0 {
		t.Errorf("a derived list is empty: default %v, peers %v, soak %v", suites.DefaultProfiles, suites.PeerProfiles, suites.SoakProfiles)
	}
	if got := suites.Where([]string{"no-such-profile", "soak", "mvp"}, func(p framework.Profile) bool { return p.Soak || p.Default }); !slices.Equal(got, []string{"soak", "mvp"}) {
		t.Errorf("Where: got %v, want the named profiles it keeps, in the order given", got)
	}
}
