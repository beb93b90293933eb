package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/sidecar"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/interrupt"
	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/suites"
	gatewaysuite "github.com/skewcheck/skewcheck/suites/gateway"
)

type conformanceFlags struct {
	servers      serverFlags
	provider     providerFlags
	binaries     binaries.Options
	kubeconfig   string
	contexts     []string
	context      string
	userContexts []string
	auditLogs    map[string]string
	upstream     bool
	// owned says the cluster behind --contexts is the user's to disturb (Target.Unowned off).
	owned   bool
	sidecar sidecar.Config
	// sidecarLeases is how the sidecar registers, when --sidecar-lease-name says so.
	sidecarLeases sidecar.Leases
	list, dryRun  bool
	// output is how --list prints (-o).
	output    outputFormat
	inCluster bool
	reference referenceFlags
	dataplane dataplaneFlags
	gateway   gatewayFlags
	run       framework.RunOptions
	timeouts  framework.Timeouts
}

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
				f.run.Profiles = []string{gatewaysuite.Profile}
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
	fl := cmd.Flags()
	f.servers.add(cmd)
	f.provider.add(cmd)
	addBinaryFlags(cmd, &f.binaries)
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "test an existing target instead of a local cluster")
	fl.StringSliceVar(&f.contexts, "contexts", nil, "with --kubeconfig: one admin context per apiserver or proxy endpoint (without it, every apiserver of the cluster is found)")
	fl.StringVar(&f.context, "context", "", "with --kubeconfig and no --contexts: the context that reaches the cluster (default: the kubeconfig's current context)")
	fl.StringSliceVar(&f.userContexts, "user-contexts", nil, "with --kubeconfig: one context per endpoint for an identity RBAC grants nothing (enables the identity tests)")
	fl.BoolVar(&f.owned, "owned", false, "with --kubeconfig and --contexts: the cluster behind the contexts is yours to disturb (a test cluster), so the tests that load its servers past their use or touch its registrations in kube-system run; without it they do not apply there")
	fl.BoolVar(&f.upstream, "upstream", false, "with --kubeconfig: the endpoints are real kube-apiservers answering for themselves, so known upstream deviations are reported as such")
	fl.StringToStringVar(&f.auditLogs, "audit-logs", nil, "with --kubeconfig: CONTEXT=PATH, the audit log (JSON lines) of the apiserver behind each endpoint, readable here (enables the tests that need AuditLog)")
	f.reference.add(cmd)
	fl.StringVar(&f.sidecar.Shell, "sidecar-command", "", "your proxy, as a shell command run in front of every apiserver of the local cluster (the apiservers' own proxy off); logs in <report-dir>/sidecar/; its environment:\n"+sidecar.Env)
	fl.StringVar(&f.sidecar.Image, "sidecar-image", "", "your proxy, as an image in the local Docker engine (never pulled) run in front of every apiserver of the local cluster, on the host's network, with the environment of --sidecar-command and its files mounted read-only; logs in <report-dir>/sidecar/")
	fl.StringVar(&f.sidecar.Name, "sidecar-name", "sidecar", "with --sidecar-command or --sidecar-image: your proxy's name in the report")
	fl.StringVar(&f.sidecarLeases.Name, "sidecar-lease-name", "", "with --sidecar-command or --sidecar-image: your proxies register with a Lease each, named this (its environment expanded: 'acme-$SKEWCHECK_ID'), so the races profile runs through them (with --sidecar-lease-labels and --sidecar-lease-url-annotation)")
	fl.StringVar(&f.sidecarLeases.Namespace, "sidecar-lease-namespace", "kube-system", "with --sidecar-lease-name: the namespace of your proxies' leases")
	fl.StringToStringVar(&f.sidecarLeases.Labels, "sidecar-lease-labels", nil, "with --sidecar-lease-name: KEY=VALUE labels every one of your proxies' leases has")
	fl.StringVar(&f.sidecarLeases.URLAnnotation, "sidecar-lease-url-annotation", "", "with --sidecar-lease-name: the annotation of a lease with the URL peers dial (https://host:port)")
	f.dataplane.add(cmd)
	f.gateway.add(cmd)
	fl.BoolVar(&f.inCluster, "in-cluster", false, "run from inside the cluster under test, as a pod (skewcheck certify's Job does): its apiservers are found as with --kubeconfig, reached as the pod's ServiceAccount")
	fl.BoolVar(&f.dryRun, "dry-run", false, "with --kubeconfig and no --contexts: find the apiservers, print what a run would make in the cluster and the rights it needs, and exit without making anything")
	fl.BoolVar(&f.list, "list", false, "list the tests with ID, profile and version range, and exit (no cluster needed): alone, every profile's; with --profiles, --focus, --skip or --gateway, exactly those a run with them would select")
	addOutputFlag(cmd, &f.output)
	fl.StringSliceVar(&f.run.Profiles, "profiles", suites.DefaultProfiles, "profiles to run")
	fl.StringVar(&f.run.Focus, "focus", "", "run only tests whose \"[ID] description\" matches this regular expression")
	fl.StringVar(&f.run.Skip, "skip", "", "skip tests whose \"[ID] description\" matches this regular expression")
	fl.StringVar(&f.run.ReportDir, "report-dir", "_reports", "where the report and failure evidence go")
	fl.Int64Var(&f.run.Seed, "seed", 0, "random seed (0: from the clock); it is in the report so a run can be replayed")
	addVerboseAlias(cmd, &f.run.Verbose)
	fl.StringVar(&f.run.Implementation.Organization, "implementation-organization", "", "who makes the implementation under test")
	fl.StringVar(&f.run.Implementation.Project, "implementation-project", "", "the implementation's name (default: kubernetes for a local cluster)")
	fl.StringVar(&f.run.Implementation.Version, "implementation-version", "", "the implementation's version")
	fl.StringVar(&f.run.Implementation.URL, "implementation-url", "", "where to read about the implementation")
	fl.StringSliceVar(&f.run.Implementation.Contact, "implementation-contact", nil, "who to ask about this report")
	fl.DurationVar(&f.timeouts.Request, "timeout-request", f.timeouts.Request, "bound on one request and on waits for a write to show")
	fl.DurationVar(&f.timeouts.Converge, "timeout-converge", f.timeouts.Converge, "bound on waiting for every proxy path to be live")
	fl.DurationVar(&f.timeouts.Unavailable, "timeout-unavailable", f.timeouts.Unavailable, "bound on the time to 503 after a peer fails")
	fl.DurationVar(&f.timeouts.DiscoveryLeave, "timeout-discovery-leave", f.timeouts.DiscoveryLeave, "bound on a stopped server leaving merged discovery")
	fl.DurationVar(&f.timeouts.Spec, "timeout-spec", 0, "bound on one whole test (0: twice the sum of the unavailable bound, the hold, two convergences and a request)")
	fl.DurationVar(&f.timeouts.Refused, "timeout-refused", f.timeouts.Refused, "bound on the time to 503 after a peer crashed (its connections are refused)")
	fl.DurationVar(&f.timeouts.Hold, "fault-hold", f.timeouts.Hold, "how long a freeze, blackhole, half-open path or stale lease is held while 503 (never 404) is asserted: past every timeout of the proxy under test")
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
	if f.kubeconfig != "" && f.provider.chosen() {
		return fmt.Errorf("--provider %s makes a cluster: it cannot go with --kubeconfig, which tests an existing target", f.provider.name)
	}
	if f.makesCluster() {
		if err := f.provider.require(); err != nil {
			return err
		}
		if line := localNotKubeconfig(); line != "" {
			fmt.Fprintln(streams.ErrOut, line)
		}
		if line := f.servers.applyDefaultSkew(); line != "" {
			fmt.Fprintln(streams.ErrOut, line)
		}
	}
	if line := f.applyDefaultDataplane(); line != "" {
		fmt.Fprintln(streams.ErrOut, line)
	}
	if f.makesCluster() {
		if err := f.provider.require(f.capabilities()...); err != nil {
			return err
		}
	}
	if err := f.reference.validate(); err != nil {
		return err
	}
	if err := f.dataplane.validate(ctx); err != nil {
		return err
	}
	if err := f.gateway.validate(ctx, f); err != nil {
		return err
	}
	if f.sidecar.Enabled() && (!f.makesCluster() || f.reference.name != "") {
		return fmt.Errorf("--sidecar-command and --sidecar-image put your proxy in front of the apiservers of a cluster skewcheck makes: they cannot go with --kubeconfig or --reference")
	}
	if err := f.applySidecarLeases(); err != nil {
		return err
	}
	if !f.makesCluster() && f.dataplane.chosen() != "" {
		return fmt.Errorf("--dataplane runs on a local cluster only: it registers a Node and LoadBalancer Services, which in an existing cluster would get real load balancers and be programmed by its own kube-proxies; drop --kubeconfig (your dataplane plugs in with --dataplane exec)")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer keepCatching(stop)
	if err := prepareSidecarImage(ctx, f); err != nil {
		return err
	}
	target, cluster, cleanup, err := conformanceTarget(ctx, streams, f)
	if err != nil {
		return err
	}
	if target == nil { // --dry-run: what a run would make is printed
		return nil
	}
	defer cleanup()
	proxyState := readProxyState(ctx, streams, target)
	stopDataplane, err := f.dataplane.start(ctx, streams, target, cluster, f.binaries, f.run.ReportDir)
	if err != nil {
		return err
	}
	defer stopDataplane()
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
	rep.ProxyState = proxyState
	files, err := report.Write(f.run.ReportDir, rep)
	if err != nil {
		return err
	}
	printSummary(streams.Out, rep, files)
	return verdictError(streams.Out, rep, files[0])
}

// verdictError turns the run's verdict into the command's outcome: nil (exit 0), "not
// conformant" (exit 1), or "incomplete" (exit 2), so a script can tell an implementation's
// failure from a run that could not check everything here.
func verdictError(out io.Writer, rep *report.Conformance, details string) error {
	switch rep.Verdict() {
	case report.VerdictFailed:
		return fmt.Errorf("not conformant: %s (details in %s)", failingProfiles(rep), details)
	case report.VerdictIncomplete:
		missing := rep.MissingTests()
		if len(missing) == 0 {
			return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: no test ran (details in %s)", details)}
		}
		return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: nothing failed, but %d tests that apply could not run here (NOT TESTED above; details in %s)", len(missing), details)}
	}
	if slices.ContainsFunc(rep.Tests, func(t report.Test) bool { return t.SkipKind == report.Deselected }) {
		fmt.Fprintln(out, "every selected test passed; the profiles are partial only because --focus/--skip left tests out")
	}
	for _, p := range rep.Profiles {
		if p.Result == report.ProfileNotApplicable {
			fmt.Fprintf(out, "profile %s: no test of it applies to these versions; nothing is claimed for it\n", p.Name)
		}
	}
	return nil
}

// makesCluster says whether the run makes its cluster, rather than testing one that runs
// (--kubeconfig, --in-cluster).
func (f *conformanceFlags) makesCluster() bool { return f.kubeconfig == "" && !f.inCluster }

// capabilities are what the flags ask of the provider beyond a cluster.
func (f *conformanceFlags) capabilities() []clusters.Capability {
	var caps []clusters.Capability
	if ref, err := front.LookupReference(f.reference.name); err == nil {
		caps = append(caps, ref.Needs...)
	}
	if f.sidecar.Enabled() || f.gateway.enabled() {
		caps = append(caps, clusters.VendorFronts)
	}
	if f.dataplane.chosen() != "" {
		caps = append(caps, clusters.NodeProxiers)
	}
	return caps
}

// conformanceTarget finds or makes the target, and the cluster behind it when it made one
// (for a dataplane to join); cleanup deletes what it made.
func conformanceTarget(ctx context.Context, streams IOStreams, f *conformanceFlags) (*framework.Target, clusters.Cluster, func(), error) {
	if (f.kubeconfig != "" && len(f.contexts) == 0) || f.inCluster {
		if f.dryRun {
			return nil, nil, nil, dryRunExisting(ctx, streams, f.kubeconfig, f.context, f.run)
		}
		// The existing provider: a cluster that runs, its apiservers found.
		c, err := clusters.New(ctx, existing.ProviderName, clusters.Spec{Kubeconfig: f.kubeconfig, Context: f.context, InCluster: f.inCluster, Progress: streams.ErrOut})
		if err != nil {
			return nil, nil, nil, wordError(err)
		}
		cleanup := func() {
			if err := c.Delete(); err != nil {
				fmt.Fprintln(streams.ErrOut, "warning:", err)
			}
		}
		t, err := c.Target(ctx)
		if err == nil {
			t.Upstream, t.UpstreamDeclared = f.upstream, f.upstream
			err = attachAuditLogs(t, f.auditLogs)
		}
		if err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		return t, c, cleanup, nil
	}
	if f.kubeconfig != "" {
		// Endpoints named by hand reach a cluster skewcheck did not make, which no test
		// disturbs unless the user says it is theirs to disturb (--owned); then, being a
		// vendor's proxies in front of a cluster of its own, what cannot run on them is
		// missing (the profile partial), not inapplicable.
		t, err := framework.FromKubeconfig(ctx, f.kubeconfig, f.contexts, f.userContexts)
		if err == nil {
			t.Upstream, t.UpstreamDeclared = f.upstream, f.upstream
			err = attachAuditLogs(t, f.auditLogs)
		}
		if err != nil {
			return t, nil, func() {}, err
		}
		t.Unowned = !f.owned
		// A namespace and a label of the run's own, as on a cluster the kubeconfig's context
		// reaches: what the tests make is recorded as the server answers each create, and
		// exactly that is removed on every exit.
		fp, admin := existing.NewFootprint(time.Now()), t.Endpoints[0].Admin
		if err := fp.MakeNamespace(ctx, admin); err != nil {
			return nil, nil, nil, fmt.Errorf("through context %s: %w", f.contexts[0], err)
		}
		fp.Recorder.WrapTarget(t)
		t.Namespace, t.Run = fp.Namespace(), fp.Run
		fmt.Fprintf(streams.ErrOut, "%s: made through context %s, removed at the end\n", fp, f.contexts[0])
		return t, nil, func() {
			if err := fp.Remove(admin); err != nil {
				fmt.Fprintln(streams.ErrOut, "warning: removing what the run made:", err)
			}
		}, nil
	}
	specs, err := f.servers.specs()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := f.reference.apply(specs); err != nil {
		return nil, nil, nil, err
	}
	f.gateway.specs(specs)
	if f.sidecar.Enabled() {
		for i := range specs {
			specs[i].DisablePeerProxy = true // the sidecar does the proxy's job
		}
	}
	// Tests of network faults act on forwarders in front of each peer address: the
	// cluster gets them when a selected test needs them (FeaturePeerPath), whatever its
	// profile is called.
	peerPaths := needsFeature(f.run.Profiles, faults.FeaturePeerPath)
	c, err := f.provider.newCluster(ctx, clusters.Spec{Name: "conformance", Servers: specs, Port: f.servers.port,
		Binaries: f.binaries, Progress: streams.ErrOut, ConvergeTimeout: f.timeouts.Converge, PeerPaths: peerPaths})
	if err != nil {
		return nil, nil, nil, err
	}
	cleanup := func() {
		fmt.Fprintln(streams.ErrOut, "deleting the cluster")
		if err := c.Delete(); err != nil {
			fmt.Fprintln(streams.ErrOut, "warning:", err)
		}
	}
	var f0 front.Front
	switch {
	case f.gateway.enabled():
		f0, err = f.gateway.front(streams, f.run.ReportDir)
	case f.sidecar.Enabled():
		cfg := f.sidecar // the flags as typed; what the run adds goes into its copy
		cfg.Progress = streams.ErrOut
		// The sidecars' logs go with the report, which outlives the cluster's directory
		// and a container's output: a vendor whose proxy failed reads why there.
		cfg.Dir = filepath.Join(f.run.ReportDir, "sidecar")
		if err = os.MkdirAll(cfg.Dir, 0o755); err == nil {
			f0 = cfg
		}
	case f.reference.name != "":
		fmt.Fprintf(streams.ErrOut, "starting the reference %s in front of every apiserver\n", f.reference.name)
		f0 = f.reference.front()
	}
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	if f0 != nil {
		t, stop, err := front.Before(ctx, f.provider.name, c, f0)
		if err != nil {
			cleanup()
			return nil, nil, nil, wordError(err)
		}
		return t, c, func() { stop(); cleanup() }, nil
	}
	t, err := c.Target(ctx)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return t, c, cleanup, nil
}

// attachAuditLogs gives endpoints of an existing target the audit logs the user named.
func attachAuditLogs(t *framework.Target, logs map[string]string) error {
	for name, path := range logs {
		e := t.Endpoint(name)
		if e == nil {
			return fmt.Errorf("--audit-logs %s=%s: no endpoint %q; name one of the endpoints (--contexts, or the apiservers found: %s)", name, path, name, framework.EndpointNames(t.Endpoints))
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("--audit-logs %s=%s: %w (the apiserver's --audit-log-path, copied or mounted where skewcheck runs)", name, path, err)
		}
		f.Close()
		e.AuditLog = path
	}
	return nil
}

// failRecorder stands in for *testing.T when ginkgo runs outside go test; the report, not
// this, carries the outcome.
type failRecorder struct{}

func (failRecorder) Fail() {}

// printSummary is the run's console summary, as the report writes it.
func printSummary(out io.Writer, rep *report.Conformance, files []string) {
	report.WriteSummary(out, rep, files)
}

func failingProfiles(rep *report.Conformance) string {
	var out []string
	for _, p := range rep.Profiles {
		if p.Result != report.ProfileSuccess && p.Result != report.ProfileNotApplicable {
			out = append(out, fmt.Sprintf("profile %s is %s (%d failed, %d skipped)", p.Name, p.Result, p.Failed, p.Skipped))
		}
	}
	return strings.Join(out, "; ")
}

// profilesNotAllNeeding are those of profiles with a test that does not need feature.
func profilesNotAllNeeding(profiles []string, feature framework.Feature) []string {
	tests, _ := framework.Select(suites.All(), profiles)
	var out []string
	for _, t := range tests {
		if !slices.Contains(t.Features, feature) && !slices.Contains(out, t.Profile) {
			out = append(out, t.Profile)
		}
	}
	return out
}

// profilesAllNeeding are the profiles whose every test needs feature.
func profilesAllNeeding(feature framework.Feature) []string {
	var all []string
	for _, t := range suites.All() {
		if !slices.Contains(all, t.Profile) {
			all = append(all, t.Profile)
		}
	}
	not := profilesNotAllNeeding(all, feature)
	return slices.DeleteFunc(all, func(p string) bool { return slices.Contains(not, p) })
}

// needsFeature says whether a test of the profiles needs feature.
func needsFeature(profiles []string, feature framework.Feature) bool {
	tests, _ := framework.Select(suites.All(), profiles) // the profiles were checked by runConformance
	for _, t := range tests {
		if slices.Contains(t.Features, feature) {
			return true
		}
	}
	return false
}
