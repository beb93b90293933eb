package suites

import "github.com/skewcheck/skewcheck/framework/matrix"

// controllersCatches are the claims of the inert proxy (every server as kubeadm leaves
// it) against real upstream, kube-controller-manager on apiserver-1, which lacks batch/v1
// Jobs and the newer release's MutatingAdmissionPolicies and their bindings: three
// owners, two dependents each, read through both servers (docs/controllers.md). The
// collector's discovery through apiserver-1 lists none of them, so it never maps the
// owners: nothing is collected, nothing finishes. Each count as the runs measured it.
var controllersCatches = matrix.Catches{
	"controllers/kubeadm-peer-proxy": {
		// Background: the owners go, their dependents stay, 12 of 12 reads find one.
		"CTRL-002": sees("dependents of owners deleted with propagationPolicy Background still there", "len:12"),
		// Foreground and Orphan: each owner waits with its finalizer for a collector that
		// never maps it, all three stuck.
		"CTRL-003": sees("owners deleted with propagationPolicy Foreground still there", "len:3"),
		"CTRL-004": sees("owners deleted with propagationPolicy Orphan still there", "len:3"),
		// The namespace controller's discovery lacks batch/v1: its 2 Jobs stay in storage.
		"CTRL-010": sees("left in storage after the namespace was deleted", "len:2"),
	},
}
