// Package reexec lets a package run this very binary as a process of its own (kind's docker
// shim, the reference dataplane on a node): the package registers a hook in its init, and
// main, or TestMain of a test binary that starts such processes, calls RunIfCalled first
// thing. A hook returns at once unless the process was started as its helper, and then
// never returns. A binary that does not link a package runs none of its hooks (skewcheck's
// image links neither kind nor its shim). It imports nothing of the module.
package reexec

var hooks []func()

// Register adds a hook RunIfCalled runs; call it from init.
func Register(hook func()) { hooks = append(hooks, hook) }

// RunIfCalled runs every registered hook, in registration order.
func RunIfCalled() {
	for _, h := range hooks {
		h()
	}
}
