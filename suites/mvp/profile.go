package mvp

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: a default, about peers, judged by the reference
// peer proxy's flaws. Its far ends: v1.27.16, before the proxy's gate (1.28), where every
// test must skip; v1.28.15, the oldest release with the gate, where the tests pass without
// the deviations first seen in 1.33; v1.32.13, the last release whose proxy goes by
// StorageVersions, where MVP-050 to MVP-053 (from 1.35) skip.
var Conformance = framework.Profile{Name: Profile, Tests: Tests, Default: true, Peers: true,
	FarEnds: []string{"v1.27.16", "v1.28.15", "v1.32.13"}, MutationFamily: "peerproxy"}
