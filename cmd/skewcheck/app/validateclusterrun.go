//go:build !incluster

package app

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// checkClusterRun judges the flags of a command that makes a cluster for a run and writes
// its report at the end (chaos, races), before the cluster is made: the durations, the
// servers' port and the report directory.
func checkClusterRun(cmd *cobra.Command, sf *serverFlags, reportDir string) error {
	if err := refuseNegativeDurations(cmd.Flags()); err != nil {
		return err
	}
	if err := sf.checkPort(); err != nil {
		return err
	}
	return checkReportDir("--report-dir", reportDir)
}

// checkRaces adds what races need: every race is about a peer (one registering, crashing,
// losing its lease while another serves the requests), so one server runs none of them.
func checkRaces(cmd *cobra.Command, sf *serverFlags, reportDir string) error {
	if len(sf.versions) < 2 {
		return fmt.Errorf("--versions %s makes %d apiserver(s), and every race is between peers: give two or more, e.g. --versions v1.35.4,v1.36.3", strings.Join(sf.versions, ","), len(sf.versions))
	}
	return checkClusterRun(cmd, sf, reportDir)
}
