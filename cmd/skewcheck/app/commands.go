//go:build !incluster

package app

import "github.com/spf13/cobra"

// commands are every command of skewcheck. The image that runs inside a cluster is built
// with the tag incluster and has fewer (commands_incluster.go).
func commands(streams IOStreams) []*cobra.Command {
	return []*cobra.Command{newClusterCommand(streams), newConformanceCommand(streams), newChaosCommand(streams), newUpgradeCommand(streams), newObserveCommand(streams),
		newRacesCommand(streams), newReferenceCommand(streams), newReportCommand(streams), newBinariesCommand(streams),
		newNightlyCommand(streams), newMutationCommand(streams), newEmulationCommand(streams), newImagesCommand(streams), newEtcdCommand(streams),
		newInClusterCommand(streams), newCertifyCommand(streams), newCleanupCommand(streams), newVersionCommand(streams)}
}
