package gateway

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: every test needs a gateway in front of the
// apiservers (Profile.NeedsGateway), judged by the reference gateway's defects. Its far
// ends, each a job of its own with the reference gateway: v1.27.16, before the proxy's gate
// (1.28), where its tests must skip; v1.32.13, the last release whose proxy goes
// by StorageVersions, where they pass.
var Conformance = framework.Profile{Name: Profile, Tests: Tests,
	FarEnds: []string{"v1.27.16", "v1.32.13"}, MutationFamily: "gateway"}
