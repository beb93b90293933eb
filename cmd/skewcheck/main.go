// Command skewcheck brings up skewed Kubernetes control planes, runs the conformance suites
// for the proxies between clients and apiservers against them, and injects faults. The
// commands are package app; this is only the process around them.
package main

import (
	"os"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/app"
)

func main() {
	// kind's docker commands come back here on hosts that cannot run privileged containers.
	kind.RunDockerShimIfCalled()
	// The reference dataplane is this binary, re-executed on a node.
	dataplane.RunReferenceIfCalled()
	os.Exit(app.Run(os.Args[1:], app.StdStreams()))
}
