package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/stack"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/interrupt"
	"github.com/skewcheck/skewcheck/suites"
)

func newConformanceCommand(streams IOStreams) *cobra.Command {
	return conformanceCommandWith(streams, &conformanceFlags{timeouts: framework.DefaultTimeouts()})
}

// conformanceCommandWith is the command with its flags bound to f (tests read f).
func conformanceCommandWith(streams IOStreams, f *conformanceFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Run the conformance suites against a local skewed cluster (default) or an existing target",
		Long: `Runs the conformance profiles and writes a report (YAML, JSON, JUnit) to --report-dir.

Exit code: 0 when no test failed and every test that applies ran (tests that do not apply
to the target's versions are "not applicable" and do not count); 1 when a test failed (or
the run could not start); 2 when nothing failed but tests that apply could not run because
the target or this machine lacks what they need ("skipped: missing <feature>", listed
under NOT TESTED): incomplete, not the implementation's failure.

Without --kubeconfig it starts a local cluster of real kube-apiservers, one per --versions
entry, runs the suites against it and deletes it. Without --server-flag its servers get
the skew the suites need (batch/v1 off on the first, autoscaling/v2 off on the second);
--profiles ipmode without --dataplane tests skewcheck's reference dataplane. With
--kubeconfig alone it finds every apiserver of that cluster itself (the addresses in the
default/kubernetes EndpointSlices, named by their identity leases) and asks each at its own
address, so the skew is read off the cluster; with --contexts it tests what the contexts
point at instead: one context per apiserver or proxy endpoint.`,
		Example: "  skewcheck conformance --versions v1.35.4,v1.36.3\n" +
			"  skewcheck conformance --kubeconfig cluster.kubeconfig --upstream --profiles mvp,discovery\n" +
			"  skewcheck conformance --list\n" +
			"  skewcheck conformance --list --profiles mvp --focus MVP-01 -o json\n" +
			"  skewcheck conformance --versions v1.36.3 --profiles ipmode --dataplane kube-proxy-nftables\n" +
			"  skewcheck conformance --sidecar-name acme-proxy --sidecar-command 'acme-proxy --listen $SKEWCHECK_LISTEN --apiserver $SKEWCHECK_APISERVER ...'\n" +
			"  skewcheck conformance --profiles ipmode --dataplane exec --dataplane-name acme-lb \\\n" +
			"      --dataplane-command 'acme-dataplane --kubeconfig $SKEWCHECK_KUBECONFIG --node $SKEWCHECK_NODE_NAME'\n" +
			"  skewcheck conformance --kubeconfig vendor.kubeconfig --contexts proxy-a,proxy-b --user-contexts proxy-a-user,proxy-b-user \\\n" +
			"      --implementation-project acme-proxy --implementation-version 1.2.0",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			applyVerbosity(cmd, streams, &f.run.Verbose)
			if f.gateway.enabled() && !cmd.Flags().Changed("profiles") {
				f.run.Profiles = suites.Names(framework.Profile.NeedsGateway)
			}
			if f.list && !listsSelection(cmd, f) {
				return printTests(streams.Out, suites.All(), f.output) // every profile, not only the default ones
			}
			if err := checkFlagsAlone(cmd, f); err != nil {
				return err
			}
			return runConformance(cmd.Context(), streams, f)
		},
	}
	f.addFlags(cmd)
	return cmd
}

func runConformance(ctx context.Context, streams IOStreams, f *conformanceFlags) error {
	tests, err := framework.Select(suites.All(), f.run.Profiles)
	if err != nil {
		return err
	}
	if err := checkBeforeBringUp(f, tests); err != nil {
		return err
	}
	if f.list { // the run's own selection: checkBeforeBringUp has refused one of no test
		selected, err := framework.Focus(tests, f.run.Focus, f.run.Skip)
		if err != nil {
			return err
		}
		return printTests(streams.Out, selected, f.output)
	}
	if err := f.settle(ctx, streams); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer keepCatching(stop)
	if err := prepareSidecarImage(ctx, f); err != nil {
		return err
	}
	if f.dryRun { // checkBeforeBringUp has let it through only with --kubeconfig alone
		return dryRunExisting(ctx, streams, f.kubeconfig, f.context, f.run)
	}
	spec, err := f.stackSpec(streams)
	if err != nil {
		return err
	}
	run, err := stack.Build(ctx, spec)
	if err != nil {
		return f.wordBuildError(err)
	}
	defer func() {
		if err := run.Close(); err != nil {
			fmt.Fprintln(streams.ErrOut, "warning:", err)
		}
	}()
	target := run.Target
	opts := f.run // the flags as typed; what the run adds goes into its copy
	opts.SkewcheckVersion = version
	if opts.Implementation.Project == "" && target.Upstream {
		opts.Implementation.Project = "kubernetes"
		opts.Implementation.URL = "https://github.com/kubernetes/kubernetes"
	}
	env := &framework.Env{Target: target, Timeouts: f.timeouts}
	rep := framework.Run(failRecorder{}, env, tests, opts)
	// The run has its verdict: a Ctrl-C from here on (the clean-up) must not end the process
	// before it exits with it. Before this, an interrupt ends the run as it always did: the
	// clusters' cleanups, then the signal's default action.
	interrupt.Owned()
	rep.ProxyState = run.ProxyState
	rep.Variant = f.variant()
	files, err := report.Write(f.run.ReportDir, rep)
	if err != nil {
		return err
	}
	printSummary(streams.Out, rep, files)
	return verdictError(streams.Out, rep, files[0])
}
