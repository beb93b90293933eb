// Command skewcheck brings up skewed Kubernetes control planes, runs the conformance suites
// for the proxies between clients and apiservers against them, and injects faults.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/kind"
)

// version is stamped at release time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// kind's docker commands come back here on hosts that cannot run privileged containers.
	kind.RunDockerShimIfCalled()
	// The reference dataplane is this binary, re-executed on a node.
	dataplane.RunReferenceIfCalled()
	root := &cobra.Command{
		Use:           "skewcheck",
		Short:         "Conformance and chaos tests for the proxies of Kubernetes under version skew",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(clusterCommand(), conformanceCommand(), chaosCommand(), upgradeCommand(), racesCommand(), referenceCommand(), reportCommand(), binariesCommand(), nightlyCommand(), mutationCommand(), imagesCommand(), etcdCommand())
	flagsFromContractEnv(root)
	if err := root.Execute(); err != nil {
		err = wordError(err)
		fmt.Fprintln(os.Stderr, "error:", err)
		var e exitError
		if errors.As(err, &e) {
			os.Exit(e.code)
		}
		os.Exit(1)
	}
}

// exitIncomplete is the exit code of a conformance run in which nothing failed but tests
// that apply could not run: 1 stays the implementation's failure (or an error).
const exitIncomplete = 2

// exitError is an error that ends the command with its own exit code.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
