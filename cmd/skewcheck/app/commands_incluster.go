//go:build incluster

package app

import "github.com/spf13/cobra"

// commands are what skewcheck's image runs inside the cluster under test (skewcheck images
// skewcheck): the suites against the cluster it finds, and the watch of an upgrade. Built
// with the tag incluster, the binary leaves out the providers that make clusters (embedded
// etcd, kind, Docker), the references and the commands that need them.
func commands(streams IOStreams) []*cobra.Command {
	return []*cobra.Command{newConformanceCommand(streams), newObserveCommand(streams), newInClusterCommand(streams), newVersionCommand(streams)}
}

// flagsFromContractEnv binds the reference commands' flags to their contracts'
// variables (contractenv.go); this build has no reference command.
func flagsFromContractEnv(*cobra.Command) {}
