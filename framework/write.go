package framework

// Write is one kind of request a test makes that reading rights do not cover: objects of a
// resource it creates, changes or deletes, or a right it uses that stores nothing (an exec
// into a pod that does not exist, impersonation). Every test declares its writes
// (Test.Makes), so a run on a cluster skewcheck does not own says before it starts
// everything it will write there (`skewcheck conformance --dry-run`), and a unit test holds
// every test that may run there to the run's footprint.
type Write struct {
	// Resource is kubectl's name of what is written: plural.group
	// ("customresourcedefinitions.apiextensions.k8s.io"), the plural alone in the core
	// group ("services"), resource/subresource ("services/status"), or SkewedResources.
	Resource string
	// Verbs are the RBAC verbs of the requests, of WriteVerbs.
	Verbs []string
	Scope Scope
	// Why says what the test writes it for.
	Why string
}

// WriteVerbs are the RBAC verbs a Write may name, as `kubectl auth can-i` takes them, in the
// order a plan lists them.
var WriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection", "impersonate"}

// SkewedResources stands for what a test finds only at run time: the resources one
// endpoint serves and another does not, of which skewcheck has a fixture (package
// fixtures). Such writes' Scope is RunNamespaceOrClusterLabelled: the cluster's discovery
// says which a resource is.
const SkewedResources = "the skewed resources"

// NoWrites is the Makes of a test that only reads: nil is a test that has not said.
var NoWrites = []Write{}

// Scope is where a write lands.
type Scope string

const (
	// RunNamespace: in TestNamespace, the run's own namespace on a cluster skewcheck does
	// not own (deleted with it), default on one it does.
	RunNamespace Scope = "in the run's namespace"
	// ClusterLabelled: cluster-scoped objects carrying RunLabels, by which a run that was
	// killed is cleaned up after.
	ClusterLabelled Scope = "cluster-scoped, labelled with the run"
	// RunNamespaceOrClusterLabelled: RunNamespace for a namespaced resource, else
	// ClusterLabelled (the SkewedResources).
	RunNamespaceOrClusterLabelled Scope = "in the run's namespace when namespaced, else cluster-scoped and labelled with the run"
	// Cluster: cluster-scoped objects without the run's label (an APIService of an
	// aggregated API): only on clusters skewcheck owns.
	Cluster Scope = "cluster-scoped"
	// StoresNothing: a request that needs a write right and leaves nothing behind
	// (impersonation).
	StoresNothing Scope = "stores nothing"
)

// InNamespace is a write into the named namespace, not the run's own (kube-system's
// identity leases): only tests that never run on a cluster skewcheck does not own make
// one.
func InNamespace(name string) Scope { return Scope("in namespace " + name) }

// InFootprint reports whether writes of scope s keep to what a run may write on a cluster
// skewcheck does not own: its namespace, objects labelled with it, or nothing stored.
func (s Scope) InFootprint() bool {
	switch s {
	case RunNamespace, ClusterLabelled, RunNamespaceOrClusterLabelled, StoresNothing:
		return true
	}
	return false
}
