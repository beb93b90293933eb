package framework

import (
	"fmt"
	"slices"
)

// Profile is one conformance profile as a value, as Gateway API has a ConformanceProfile:
// its tests and everything a command, a campaign or the Makefile decides by the profile.
// Each suite exports its own (suites/<name>.Conformance), and the lists the CLI uses
// (suites.DefaultProfiles, PeerProfiles, SoakProfiles, RangeEnds) are derived from them,
// so a profile is added in its own package and one ordered list, and no command decides by
// a profile's name.
type Profile struct {
	Name  string // the name --profiles takes and every test of it carries (Test.Profile)
	Tests []Test
	// Default: `skewcheck conformance` and certify run it when --profiles is not given.
	Default bool
	// Peers: it tests what apiservers do for one another, so the cluster must have two or
	// more servers (a run of one is refused before it starts). The nightly's pairs, the
	// emulation comparison and make chaos run these (Soak ones apart).
	Peers bool
	// Soak: each test waits out an upstream grace period (minutes), so it is never a
	// default, nor among the profiles a night's pair or emulation job runs: make soak and
	// a night's soak job run it alone.
	Soak bool
	// FarEnds are releases at the far ends of its tests' (and their deviations') version
	// ranges, which a night's adjacent supported pairs never reach, one of them below its
	// oldest test: each is run as a job of that release twice (suites.RangeEnds), so every
	// range is seen from both sides (matrix.CheckRanges).
	FarEnds []string
	// MutationFamily names the family of deliberately wrong variants (skewcheck mutation)
	// whose every mutant this profile's tests must catch: the family runs it.
	MutationFamily string
}

// NeedsGateway says whether the profile tests an API gateway in front of the apiservers:
// every test of it needs one (FeatureGateway), so a run of it without a gateway is refused,
// and with a gateway the endpoints are the gateway's, which other profiles do not test.
func (p Profile) NeedsGateway() bool {
	return len(p.Tests) > 0 && !slices.ContainsFunc(p.Tests, func(t Test) bool { return !slices.Contains(t.Features, FeatureGateway) })
}

// NeedsDataplane says whether a test of the profile needs a service dataplane under test
// (FeatureDataplane): a local cluster made for it gets the default one.
func (p Profile) NeedsDataplane() bool { return p.NeedsFeature(FeatureDataplane) }

// NeedsFeature says whether a test of the profile needs feature.
func (p Profile) NeedsFeature(feature Feature) bool {
	return slices.ContainsFunc(p.Tests, func(t Test) bool { return slices.Contains(t.Features, feature) })
}

// Validate says what is wrong with the profile as data: no name, no test, a test of
// another profile, or a soak profile that is a default (a default run would wait minutes).
func (p Profile) Validate() error {
	switch {
	case p.Name == "":
		return fmt.Errorf("a profile has no name")
	case len(p.Tests) == 0:
		return fmt.Errorf("profile %s has no test", p.Name)
	case p.Soak && p.Default:
		return fmt.Errorf("profile %s waits out grace periods (Soak) and is a default: a default run would take minutes per test; make it one or the other", p.Name)
	}
	for _, t := range p.Tests {
		if t.Profile != p.Name {
			return fmt.Errorf("profile %s lists test %s of profile %q: a test belongs to the profile that lists it", p.Name, t.ID, t.Profile)
		}
	}
	return nil
}
