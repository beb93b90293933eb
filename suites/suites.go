// Package suites lists every conformance test skewcheck has, across profiles. The CLI and
// vendors importing skewcheck as a library start here.
package suites

import (
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

// All returns every test, in a stable order.
func All() []framework.Test {
	var all []framework.Test
	all = append(all, mvp.Tests...)
	all = append(all, discovery.Tests...)
	all = append(all, ipmode.Tests...)
	all = append(all, chaos.Tests...)
	all = append(all, races.Tests...)
	all = append(all, soak.Tests...)
	all = append(all, controllers.Tests...)
	return append(all, gateway.Tests...)
}

// DefaultProfiles are what `skewcheck conformance` runs when not told otherwise: the Mixed
// Version Proxy's. The ipmode profile is about a service dataplane, so it is asked for with
// --profiles ipmode --dataplane <name> (make conformance runs it for each dataplane).
var DefaultProfiles = []string{mvp.Profile, discovery.Profile}

// PeerProfiles are the profiles about what apiservers do for one another: proxying, merged
// discovery, a peer's faults and registrations. On a single server they have nothing to
// test, so a run of one is refused before it starts; the other profiles (ipmode, gateway)
// test what one server and its front do, their few tests of a skew skipping with the
// reason.
var PeerProfiles = []string{mvp.Profile, discovery.Profile, chaos.Profile, races.Profile}

// SoakProfiles are about peers too, but each test waits out an upstream grace period
// (minutes): never a default, nor among PeerProfiles, which the nightly's conformance and
// emulation jobs and make chaos run. make soak, the nightly's soak jobs and the mutation
// matrix's peer proxy family (its baseline and the mutants claiming them) run them.
var SoakProfiles = []string{soak.Profile}
