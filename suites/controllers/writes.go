package controllers

import "github.com/skewcheck/skewcheck/framework"

// ownersAndDependents are the garbage collection tests' writes: owners of the skewed
// resources and ConfigMaps they own, all removed when the test ends.
var ownersAndDependents = []framework.Write{
	{Resource: framework.SkewedResources, Verbs: []string{"create", "patch", "delete"}, Scope: framework.RunNamespaceOrClusterLabelled,
		Why: "owners the garbage collector must map through its discovery (their finalizers patched away at the end, should the collector leave them)"},
	{Resource: "configmaps", Verbs: []string{"create", "delete"}, Scope: framework.RunNamespace,
		Why: "dependents with owner references to those owners"},
}

// namespaceObjects are the namespace test's: a namespace of its own holding objects of
// the skewed resources, deleted by the test (and whatever the controller leaves, by it).
var namespaceObjects = []framework.Write{
	{Resource: "namespaces", Verbs: []string{"create", "delete"}, Scope: framework.ClusterLabelled,
		Why: "a namespace of the test's own, for the namespace controller to empty"},
	{Resource: framework.SkewedResources, Verbs: []string{"create", "delete"}, Scope: framework.InNamespace("of the test's own"),
		Why: "objects only a peer serves, which the namespace controller must delete"},
	{Resource: "configmaps", Verbs: []string{"create"}, Scope: framework.InNamespace("of the test's own"),
		Why: "an object every server serves, beside them"},
}
