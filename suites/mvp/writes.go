package mvp

import "github.com/skewcheck/skewcheck/framework"

// What the profile's tests write (framework.Test.Makes), by the helper that writes it.

// skewed are objects of the resources only some servers serve (createVia, refusedWrite):
// in the run's namespace, or labelled with the run when cluster-scoped.
func skewed(why string, verbs ...string) framework.Write {
	return framework.Write{Resource: framework.SkewedResources, Verbs: verbs, Scope: framework.RunNamespaceOrClusterLabelled, Why: why}
}

// made is createVia's object, deleted when the test ends.
var made = []framework.Write{skewed("an object made to read through the proxy, deleted when the test ends", "create", "delete")}

// everyVerb is proxiedWrites': every write verb through the proxy.
var everyVerb = []framework.Write{skewed("an object made, updated, patched and deleted through the proxy, and two more deleted by a deletecollection",
	"create", "update", "patch", "delete", "deletecollection")}

// grants are grantRead's: the unprivileged user may get, list and watch one skewed resource.
var grants = framework.ReadGrant

// refused is refusedWrite's: a create the test expects refused, deleted should the proxy
// let it through.
var refused = []framework.Write{skewed("a create as the unprivileged user (or anonymous) the proxy must refuse, deleted should it not", "create", "delete")}

// impersonates: the admin asks as the unprivileged user, which stores nothing.
var impersonates = []framework.Write{{Resource: "users", Verbs: []string{"impersonate"}, Scope: framework.StoresNothing,
	Why: "the kubeconfig's user asking as the unprivileged user (Impersonate-User)"}}

// execs: an exec into a pod that does not exist, answered 404 or 403: nothing runs.
var execs = []framework.Write{{Resource: "pods/exec", Verbs: []string{"create"}, Scope: framework.RunNamespace,
	Why: "an exec (SPDY and websocket) into a pod that does not exist: answered 404, or 403 to the unprivileged user; nothing runs"}}

// aggregatedObjects are objects of an aggregated API the test serves (servedByEachItself).
var aggregatedObjects = []framework.Write{{Resource: "gadgets.<name>.aggregated.skewcheck.io", Verbs: []string{"create"}, Scope: framework.RunNamespace,
	Why: "objects of that aggregated API, kept by its server on this machine"}}

// with is the writes of a test that calls several helpers.
func with(writes ...[]framework.Write) []framework.Write {
	var out []framework.Write
	for _, w := range writes {
		out = append(out, w...)
	}
	return out
}
