//go:build !incluster

package main

import (
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/kind"
)

// reexecuted runs what this binary is when started as something else, and returns
// otherwise: kind's docker commands come back here on hosts that cannot run privileged
// containers, and the reference dataplane is this binary, re-executed on a node.
func reexecuted() {
	kind.RunDockerShimIfCalled()
	dataplane.RunReferenceIfCalled()
}
