package chaos

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: about peers (a peer's faults), judged by the
// reference peer proxy's flaws. Its far ends are mvp's: v1.27.16, before the proxy's gate,
// where every test must skip; v1.28.15, the oldest release with it, where the tests pass
// without the deviations first seen in 1.33; v1.32.13, the last release whose proxy goes by
// StorageVersions.
var Conformance = framework.Profile{Name: Profile, Tests: Tests, Peers: true,
	FarEnds: []string{"v1.27.16", "v1.28.15", "v1.32.13"}, MutationFamily: "peerproxy"}
