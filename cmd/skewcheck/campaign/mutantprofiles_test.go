package campaign

import (
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/suites"
)

// The families and the profiles meet by name (framework.Profile.MutationFamily): every
// family runs a profile, and every profile names a family, so a profile no mutant could
// fail, or a family that runs nothing, is found here.
func TestEveryProfileIsJudgedByAFamily(t *testing.T) {
	families := mutationFamilies()
	for _, f := range mutantFamilies {
		if len(f.profiles()) == 0 {
			t.Errorf("family %s runs no profile: no profile in suites.Profiles names it (MutationFamily)", f.name)
		}
	}
	for _, p := range suites.Profiles {
		if !slices.Contains(families, p.MutationFamily) {
			t.Errorf("profile %s names mutation family %q, which is none of %v", p.Name, p.MutationFamily, families)
		}
	}
}
