package soak

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: about peers too, but each test waits out an
// upstream grace period (minutes), so it runs apart (Soak); the reference peer proxy's
// family runs it in its baseline and in the mutants claiming its tests. Its far end is
// v1.32.13, below its tests (from 1.35).
var Conformance = framework.Profile{Name: Profile, Tests: Tests, Peers: true, Soak: true,
	FarEnds: []string{"v1.32.13"}, MutationFamily: "peerproxy"}
