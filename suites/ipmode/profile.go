package ipmode

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value: its tests of a service dataplane need one
// (Profile.NeedsDataplane), and the reference dataplane's flawed variants judge it. Its far
// end, a job of its own with the reference dataplane, is v1.29.15, before ipMode's beta
// (1.30), where its tests must skip.
var Conformance = framework.Profile{Name: Profile, Tests: Tests,
	FarEnds: []string{"v1.29.15"}, MutationFamily: "ipmode"}
