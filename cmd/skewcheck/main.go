// Command skewcheck brings up skewed Kubernetes control planes, runs the conformance suites
// for the proxies between clients and apiservers against them, and injects faults. The
// commands are package app; this is only the process around them.
package main

import (
	"os"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/app"
)

func main() {
	reexecuted()
	os.Exit(app.Run(os.Args[1:], app.StdStreams()))
}
