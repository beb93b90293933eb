package controllers

import "github.com/skewcheck/skewcheck/framework"

// Conformance is the profile as a value, judged by the controllers family (upstream's
// proxy inert as kubeadm leaves it). Its far end is v1.32.13, below its tests (from 1.35).
var Conformance = framework.Profile{Name: Profile, Tests: Tests,
	FarEnds: []string{"v1.32.13"}, MutationFamily: "controllers"}
