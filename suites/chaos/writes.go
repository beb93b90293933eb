package chaos

import "github.com/skewcheck/skewcheck/framework"

// What the profile's tests write (framework.Test.Makes). The faults themselves act on
// servers and their network, which is no write to the cluster: their features keep every
// test of this profile off clusters skewcheck does not own.

// load is scenario.Measure's: the seeded writes of the load, deleted by their label at the
// end.
var load = framework.Write{Resource: framework.SkewedResources, Verbs: []string{"create", "deletecollection"},
	Scope: framework.RunNamespaceOrClusterLabelled, Why: "the load's writes through the entry, read back at the peer, then deleted by their label"}

// slowCreates are the slow-client fault's: creates whose body never ends, so nothing is
// stored unless the fault ends it.
var slowCreates = framework.Write{Resource: framework.SkewedResources, Verbs: []string{"create"},
	Scope: framework.RunNamespaceOrClusterLabelled, Why: "slow-loris creates whose body never ends"}

// renewSkew is the clock-behind fault's: the peer's registration renewed with skewed renew
// times, then with its own again (upstream's identity lease; a target's own Registrar
// writes its own).
var renewSkew = framework.Write{Resource: "leases.coordination.k8s.io", Verbs: []string{"update"}, Scope: framework.InNamespace("kube-system"),
	Why: "the peer's identity lease renewed as by a clock 2 h behind, then as by its own"}
