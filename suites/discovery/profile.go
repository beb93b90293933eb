package discovery

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: a default, about peers, judged by the reference
// peer proxy's flaws. Its far ends: v1.32.13, below its tests (from 1.35), where every test
// must skip; v1.35.4, below the discovery deviation of 1.36, where the tests pass without it.
var Conformance = framework.Profile{Name: Profile, Tests: Tests, Default: true, Peers: true,
	FarEnds: []string{"v1.32.13", "v1.35.4"}, MutationFamily: "peerproxy"}
