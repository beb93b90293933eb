package stack

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Run is a built stack: what the suites test, and how to take it down.
type Run struct {
	// Target is what clients reach: the front's endpoints, or the apiservers'.
	Target *framework.Target
	// Cluster is the cluster behind the target (its capabilities are found by a type
	// assertion: clusters.Upgradable, clusters.Disconnector, ...); nil for Contexts.
	Cluster clusters.Cluster
	// ProxyState is the Mixed Version Proxy's state before the run, when Spec.ProxyState
	// asked for it.
	ProxyState *report.ProxyState
	undo       *undo
}

// Close undoes what Build made, newest first, once: the dataplane, what the run made
// through the contexts, the front, the cluster. It returns every failure, joined; a
// later call returns the same.
func (r *Run) Close() error { return r.undo.run() }
