package races

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: about peers (their registrations), judged by the
// reference peer proxy's flaws. Its far end is v1.32.13, below its tests (from 1.35).
var Conformance = framework.Profile{Name: Profile, Tests: Tests, Peers: true,
	FarEnds: []string{"v1.32.13"}, MutationFamily: "peerproxy"}
