// Command skewcheck brings up skewed Kubernetes control planes, runs the conformance suites
// for the proxies between clients and apiservers against them, and injects faults. The
// commands are package app; this is only the process around them.
package main

import (
	"os"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/app"
	"github.com/skewcheck/skewcheck/internal/reexec"
)

func main() {
	// This binary, started as something else by a package it links (kind's docker shim,
	// the reference dataplane on a node), runs as that and never returns.
	reexec.RunIfCalled()
	os.Exit(app.Run(os.Args[1:], app.StdStreams()))
}
