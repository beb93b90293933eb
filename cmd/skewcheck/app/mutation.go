//go:build !incluster

package app

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
)

func newMutationCommand(streams IOStreams) *cobra.Command {
	var o campaign.MutationOptions
	var list, rebuild bool
	var output outputFormat
	cmd := &cobra.Command{
		Use:   "mutation",
		Short: "The mutation matrix: every deliberately flawed reference against its profiles, to show every test can fail",
		Long: `Runs each reference implementation as shipped (its baseline), then each of its
deliberately wrong variants (a mutant), through the profiles that must catch them, each
as its own 'skewcheck conformance' on a local cluster of its own, --jobs at a time:
  peerproxy  the reference peer proxy's flaws (--reference-flaw), profiles mvp, discovery,
             chaos and races, on three servers (the older, the newer twice) so a second hop
             has somewhere to go;
  gateway    the reference gateway's defects (--gateway-defect), profile gateway;
  ipmode     the reference dataplane's flawed variants (--dataplane), profile ipmode.
The mutants are read from each reference's own registry, so a new flaw joins the matrix.

A baseline runs every test of its profiles; a mutant only the tests it claims
(suites/mutation_*.go), since only a claimed failure, for the claim's reason, counts
(--every-test runs them all, to see its unclaimed failures too).

A test is failed by a mutant when it fails against the mutant, as the mutant claims, and
passes against the baseline. Writes mutation.json and mutation.md to --report-dir, each
run's report beside them. Exit 1 when a run left no report, a test fails against a
baseline, or a test no mutant fails or a mutant no test catches has no reason in the
reasons table (suites/mutation.go).`,
		Example: "  skewcheck mutation --versions v1.35.4,v1.36.3\n" +
			"  skewcheck mutation --list\n" +
			"  skewcheck mutation --list -o json\n" +
			"  skewcheck mutation --mutants '^peerproxy/drop-impersonation$' --focus 'MVP-042'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("output") && !list {
				return fmt.Errorf("-o prints the runs --list lists: it goes with --list (a matrix writes mutation.json and mutation.md to --report-dir)")
			}
			if list {
				runs, err := campaign.PlanMutation(o)
				if err != nil {
					return err
				}
				return printMutationPlan(streams.Out, runs, output)
			}
			if rebuild {
				return campaignExit(campaign.RebuildMutation(o, streams.Out))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			self, err := selfBinary("mutant")
			if err != nil {
				return err
			}
			o.Self = self
			return campaignExit(campaign.Mutation(ctx, o, streams.Out, streams.ErrOut))
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Versions, "versions", []string{"v1.35.4", "v1.36.3"}, "the older and the newer kube-apiserver of every run's cluster")
	f.StringVar(&o.Mutants, "mutants", "", `run only the mutants whose "<family>/<variant>" matches this regular expression (and their families' baselines)`)
	f.StringVar(&o.Focus, "focus", "", "only tests whose \"[ID] description\" matches, in every run; the matrix then holds only those")
	f.BoolVar(&o.EveryTest, "every-test", false, "run every test of its family's profiles against each mutant, not only the tests it claims: slower, and only then are a mutant's unclaimed (incidental) failures seen, which never count")
	f.Int64Var(&o.Seed, "seed", 0, "seed of every run (0: from the clock); in the matrix, so it can be replayed")
	f.StringVar(&o.ReportDir, "report-dir", "_reports/mutation", "where mutation.json, mutation.md and every run's report go")
	f.IntVar(&o.Jobs, "jobs", 3, "runs at a time, each on a cluster of its own (they mostly wait on apiservers and held faults: 3 suit 2 cores, as make conformance's)")
	f.BoolVar(&list, "list", false, "list the runs the matrix would make, with their flags, and exit")
	f.BoolVar(&rebuild, "rebuild", false, "run nothing: build the matrix again from the runs' reports in --report-dir (after an edit of the reasons table)")
	addOutputFlag(cmd, &output)
	addBinaryFlags(cmd, &o.Binaries)
	return cmd
}
