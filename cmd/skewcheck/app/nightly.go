//go:build !incluster

package app

import (
	"encoding/json"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/suites"
)

func newNightlyCommand(streams IOStreams) *cobra.Command {
	var o campaign.NightOptions
	var plan bool
	cmd := &cobra.Command{
		Use:   "nightly",
		Short: "The version matrix: for every adjacent pair, a rolling upgrade and its rollback, and the conformance profiles, with an index.html",
		Long: `Builds (or finds cached) the kube-apiserver of every --versions, then for each adjacent pair
(v1.33 + v1.34, v1.34 + v1.35, ...) runs, each as its own skewcheck process:
  - conformance --profiles against a local cluster of the pair on three servers, as an HA
    control plane mid-upgrade has them: the older with batch/v1 off (a resource with a
    subresource that two peers serve), the newer twice with autoscaling/v2 off;
  - upgrade --path older,newer,older with --servers and --fault, under a seeded load: the
    rolling upgrade, then the rolling downgrade back (the rollback), on one cluster, so the
    older version reads back what the newer one wrote;
  - with --soak, where its tests apply to both versions, conformance --profiles soak on
    the same three servers: the tests that wait out an upstream grace period (minutes).
With --ranges, each far end of the version ranges (1.27, 1.28, 1.29, 1.32, 1.35 alone),
which adjacent pairs never reach: conformance of one release twice with the profiles that
must skip or pass there (make ranges runs these alone, with --jobs '^ranges/'); a run
that contradicts a range fails its job, a test skipped by range does not.
Then, with --mutation, the mutation matrix (skewcheck mutation) on the newest pair: every
flawed reference against its profiles, under --report-dir/mutation/.
A night is a plan of jobs (each pair's conformance, upgrade, soak and, with --emulation, its
emulated-vs-real comparison; the newest pair's default profiles on each of --providers, kind's
node images built first; each family of the mutation matrix): --plan prints it as JSON, with each job's duration from --previous (an
earlier night's nightly.json) or an estimate, and --shard i/n runs the i-th of n shares of
it, split longest-first so that every job is in exactly one shard, the same on every
machine; a CI matrix runs one shard per machine, each with its own --report-dir, and every
shard the same --plan-file (with n > 1 it is required). A shard with no job still writes
its nightly.json.
Every report goes under --report-dir/<from>-<to>/, and index.html there has one row per pair:
the result of each profile, the upgrade's and the downgrade's verdicts and their timeline, links to every report, and
the seed, and the matrix's closing line. Exit 1 when anything failed; the last line is the
summary.`,
		Example: "  skewcheck nightly --versions 1.33,1.34,1.35,1.36,1.37\n  skewcheck nightly --versions v1.35.4,v1.36.3 --profiles mvp --seed 42\n" +
			"  skewcheck nightly --plan --previous last/nightly.json > plan.json\n  skewcheck nightly --plan-file plan.json --shard 2/4 --seed 42 --report-dir _reports/nightly-2",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if plan {
				p, err := campaign.NightPlan(ctx, o)
				if err != nil {
					return err
				}
				enc := json.NewEncoder(streams.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(p)
			}
			self, err := selfBinary("pair")
			if err != nil {
				return err
			}
			o.Self = self
			return campaignExit(campaign.Night(ctx, o, streams.Out, streams.ErrOut))
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Versions, "versions", clusters.NightlyVersions, "the matrix, oldest first (a minor means its newest patch release; a prerelease is named exactly)")
	f.StringSliceVar(&o.Profiles, "profiles", suites.PeerProfiles, "conformance profiles run against every pair (default: every profile about what apiservers do for one another)")
	f.StringVar(&o.ControllerManager, "controller-manager", "", "run a real kube-controller-manager (of the pair's older release) in each conformance job, connected to own-node, load-balancer or apiserver-N, for --profiles ...,controllers; empty: none")
	f.IntVar(&o.Servers, "servers", 3, "apiservers of each rolling upgrade")
	f.StringVar(&o.Fault, "fault", "crash", "process fault (crash, stop, freeze) hitting the next server during every upgrade step; empty for none")
	f.Int64Var(&o.Seed, "seed", 0, "seed of every run (0: from the clock); in the index, so a night can be replayed")
	f.StringVar(&o.ReportDir, "report-dir", "_reports/nightly", "where every report and index.html go")
	f.BoolVar(&o.Mutation, "mutation", true, "after the pairs, run the mutation matrix on the newest pair, a job per family (the peer proxy's alone over an hour): every test must fail against some flawed reference")
	f.StringSliceVar(&o.Providers, "providers", []string{"kind", "containers"}, "other providers the newest pair's default profiles run on, each a job (empty: none); they need Docker")
	f.BoolVar(&o.Emulation, "emulation", true, "compare each pair's real skew with its emulation (skewcheck emulation), where the newer can emulate the older (1.31 or later)")
	f.BoolVar(&o.Soak, "soak", true, "run each pair's soak profiles (tests that wait out an upstream grace period, minutes each) as a job of their own, where they apply to both versions")
	f.BoolVar(&o.Ranges, "ranges", true, "run each far end of the version ranges (one release twice, older releases the pairs never reach, their kube-apiservers built first) as a job of its own")
	f.StringVar(&o.Jobs, "jobs", "", "run only the jobs of the plan (or of this shard's share) whose ID matches this regular expression: one job of a night again, or the ranges' ends alone ('^ranges/')")
	f.BoolVar(&plan, "plan", false, "print the night's jobs as JSON (id, what, pair, family, seconds, measured) and exit")
	f.StringVar(&o.Shard, "shard", "1/1", "run the i-th of n shares of the plan (i/n): every job is in exactly one shard; with n > 1, give every shard the same --plan-file")
	f.StringVar(&o.Previous, "previous", "", "an earlier night's nightly.json: the plan's durations come from its jobs")
	f.StringVar(&o.PlanFile, "plan-file", "", "run this plan (what --plan printed, its versions and durations) instead of making one: every shard of a night splits the same plan")
	addBinaryFlags(cmd, &o.Binaries)
	return cmd
}
