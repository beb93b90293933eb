//go:build !incluster

package app

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/suites"
)

func newEmulationCommand(streams IOStreams) *cobra.Command {
	var o campaign.EmulationOptions
	cmd := &cobra.Command{
		Use:   "emulation",
		Short: "Does a CI that emulates the older release (--emulated-version) predict real skew? Both pairs side by side",
		Long: `Runs the conformance profiles twice, each as its own skewcheck conformance process on a local
cluster of its own, one after the other:
  - real:     the older and the newer kube-apiserver of --versions;
  - emulated: the newer binary twice, the first started with --emulated-version of the
              older release (KEP-4330: its APIs and feature-gate defaults, the binary's code).
Both get the same skew as a default conformance run (batch/v1 off on the first server,
autoscaling/v2 on the second) and the same seed, so the tests run in the same order.
Then it prints one row per test with both results, and for each row that differs, why:
what each run saw, whether a test's or known deviation's version range parts the older
release from the newer binary (an emulating server runs, and is judged by, its binary's
code), and which GVRs the two pairs served differently. Written to --report-dir as
emulation.md and emulation.json, beside each run's own report (real/, emulated/).

Exit code: 0 when every test agrees and both runs passed; 1 when a test's result differs
between the pairs (emulation did not predict real skew), a run failed a test, or a run
could not be made; 2 when the pairs agree and nothing failed but tests that apply could
not run in either (incomplete, as for conformance).`,
		Example: "  skewcheck emulation --versions v1.35.4,v1.36.3\n" +
			"  skewcheck emulation --versions v1.35.4,v1.36.3 --profiles mvp,discovery,chaos --fault-hold 20s --report-dir _reports/emulation",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			self, err := selfBinary("pair")
			if err != nil {
				return err
			}
			o.Self = self
			return campaignExit(campaign.Emulation(ctx, o, streams.Out, streams.ErrOut))
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Versions, "versions", []string{"v1.35.4", "v1.36.3"}, "the real pair, older first; the newer binary emulates the older's minor release (at most three minors back, 1.31 or later)")
	f.StringSliceVar(&o.Profiles, "profiles", suites.PeerProfiles, "profiles both pairs run (default: every profile about what apiservers do for one another)")
	f.StringVar(&o.Focus, "focus", "", "run only tests whose \"[ID] description\" matches this regular expression, on both pairs")
	f.StringVar(&o.Skip, "skip", "", "skip tests whose \"[ID] description\" matches this regular expression, on both pairs")
	f.Int64Var(&o.Seed, "seed", 0, "random seed of both runs (0: from the clock); in both reports")
	f.DurationVar(&o.Hold, "fault-hold", 0, "how long the chaos profile holds a silent fault past its first 503 (0: conformance's default)")
	f.StringVar(&o.ReportDir, "report-dir", "_reports/emulation", "where both runs' reports and the comparison go")
	addBinaryFlags(cmd, &o.Binaries)
	return cmd
}
