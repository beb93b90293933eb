package app

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/sidecar"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
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
	// acceptMissing are the features, as typed, whose absence the run accepts.
	acceptMissing []string
}

// addFlags binds conformance's flags to f.
func (f *conformanceFlags) addFlags(cmd *cobra.Command) {
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
	fl.StringSliceVar(&f.acceptMissing, "accept-missing", nil, "features the target lacks on purpose (e.g. AuditLog on a cluster whose audit logs you cannot read): a test skipped for lacking one is still reported skipped, as missing, but no longer makes the run incomplete (exit 2), so CI can pass on what was checked; the features are those the NOT TESTED list names")
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
}

// variant is the deliberate mistake the run's reference is made with, for the report
// (report.Conformance.Variant): the mutation matrix refuses a report of another variant.
func (f *conformanceFlags) variant() string {
	return cmp.Or(f.reference.flaw, strings.Join(f.gateway.defects, ","))
}
