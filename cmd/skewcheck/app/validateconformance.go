package app

import "github.com/spf13/cobra"

// checkFlagsAlone judges what conformance's flags say on their own, before the tests are
// chosen and before anything is looked up, made or started (checkBeforeBringUp then judges
// them with the tests): each mistake is refused in a second, naming the flag and the fix.
func checkFlagsAlone(cmd *cobra.Command, f *conformanceFlags) error {
	if err := refuseNegativeDurations(cmd.Flags()); err != nil {
		return err
	}
	if err := f.servers.checkPort(); err != nil {
		return err
	}
	if err := checkProfiles(f); err != nil {
		return err
	}
	if err := checkCompanions(cmd, f); err != nil {
		return err
	}
	if f.list || f.dryRun { // neither writes a report
		return nil
	}
	return checkReportDir("--report-dir", f.run.ReportDir)
}
