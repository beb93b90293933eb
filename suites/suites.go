// Package suites lists every conformance profile skewcheck has, each a value its own
// package exports (framework.Profile), and derives from that one ordered list every list of
// profiles the CLI, the campaigns and the tests use. The CLI and vendors importing skewcheck
// as a library start here.
package suites

import (
	"slices"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites/chaos"
	"github.com/skewcheck/skewcheck/suites/controllers"
	"github.com/skewcheck/skewcheck/suites/discovery"
	"github.com/skewcheck/skewcheck/suites/gateway"
	"github.com/skewcheck/skewcheck/suites/ipmode"
	"github.com/skewcheck/skewcheck/suites/mvp"
	"github.com/skewcheck/skewcheck/suites/races"
	"github.com/skewcheck/skewcheck/suites/soak"
)

// Profiles are every profile, in a stable order: All's, docs/tests.md's and that of every
// list derived here. A new profile is its package's Conformance value added here.
var Profiles = []framework.Profile{mvp.Conformance, discovery.Conformance, ipmode.Conformance, chaos.Conformance,
	races.Conformance, soak.Conformance, controllers.Conformance, gateway.Conformance}

// All returns every test, in a stable order.
func All() []framework.Test {
	var all []framework.Test
	for _, p := range Profiles {
		all = append(all, p.Tests...)
	}
	return all
}

// Lookup is the profile of that name; false when there is none.
func Lookup(name string) (framework.Profile, bool) {
	i := slices.IndexFunc(Profiles, func(p framework.Profile) bool { return p.Name == name })
	if i < 0 {
		return framework.Profile{}, false
	}
	return Profiles[i], true
}

// Names are the names of the profiles for which keep says true, in Profiles' order.
func Names(keep func(framework.Profile) bool) []string {
	var out []string
	for _, p := range Profiles {
		if keep(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Where are those of names whose profile keep says true of, in the order given (a name of
// no profile is left out).
func Where(names []string, keep func(framework.Profile) bool) []string {
	var out []string
	for _, n := range names {
		if p, ok := Lookup(n); ok && keep(p) {
			out = append(out, n)
		}
	}
	return out
}

// DefaultProfiles are what `skewcheck conformance` runs when not told otherwise: the Mixed
// Version Proxy's (Profile.Default). The ipmode profile is about a service dataplane, so it
// is asked for with --profiles ipmode --dataplane <name> (make conformance runs it for each
// dataplane).
var DefaultProfiles = Names(func(p framework.Profile) bool { return p.Default })

// PeerProfiles are the profiles about what apiservers do for one another (Profile.Peers):
// proxying, merged discovery, a peer's faults and registrations, the soak ones left out.
// On a single server they have nothing to test, so a run of one is refused before it
// starts; the other profiles (ipmode, gateway) test what one server and its front do,
// their few tests of a skew skipping with the reason. The nightly's conformance and
// emulation jobs and make chaos run them.
var PeerProfiles = Names(func(p framework.Profile) bool { return p.Peers && !p.Soak })

// SoakProfiles are about peers too, but each test waits out an upstream grace period
// (Profile.Soak): never a default, nor among PeerProfiles. make soak, the nightly's soak
// jobs and the mutation matrix's peer proxy family (its baseline and the mutants claiming
// them) run them.
var SoakProfiles = Names(func(p framework.Profile) bool { return p.Soak })

// JudgedBy are the profiles whose tests the mutation family of that name must fail with
// its every mutant (Profile.MutationFamily): the profiles the family runs.
func JudgedBy(family string) []string {
	return Names(func(p framework.Profile) bool { return p.MutationFamily == family })
}
