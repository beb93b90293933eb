package app

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// checkBeforeBringUp judges every flag combination that needs no cluster to judge, so a
// mistake is refused in a second, naming the flag and the fix, instead of after minutes of
// bring-up (or as a panic once the tests start: ginkgo compiles --focus itself).
func checkBeforeBringUp(f *conformanceFlags, tests []framework.Test) error {
	for _, re := range []struct{ flag, value string }{{"--focus", f.run.Focus}, {"--skip", f.run.Skip}} {
		if re.value == "" {
			continue
		}
		if _, err := regexp.Compile(re.value); err != nil {
			return fmt.Errorf("%s %q is not a regular expression (%v): it is matched against \"[ID] description\", e.g. %s 'MVP-01' or %s '\\[MVP-014\\]'",
				re.flag, re.value, err, re.flag, re.flag)
		}
	}
	if err := f.settleAcceptMissing(); err != nil {
		return err
	}
	if err := checkSelection(f, tests); err != nil { // a --list of no test says why, as the run would
		return err
	}
	if len(f.userContexts) > 0 && len(f.contexts) == 0 && f.kubeconfig != "" {
		return fmt.Errorf("--user-contexts names one context per endpoint of --contexts, which is not given: give both, or neither (then every apiserver is found, and the unprivileged user is a ServiceAccount the run makes)")
	}
	if f.context != "" && f.kubeconfig != "" && len(f.contexts) > 0 {
		return fmt.Errorf("--context %s chooses the context that reaches the cluster whose apiservers are found: it goes with --kubeconfig and without --contexts", f.context)
	}
	if f.inCluster && (f.kubeconfig != "" || f.provider.chosen()) {
		return fmt.Errorf("--in-cluster tests the cluster this runs in: it cannot go with --kubeconfig or --provider")
	}
	if f.owned && (f.kubeconfig == "" || len(f.contexts) == 0) {
		return fmt.Errorf("--owned says the cluster behind --contexts is yours to disturb: it goes with --kubeconfig FILE --contexts a,b (a cluster whose apiservers are found is never disturbed; one skewcheck makes is its own)")
	}
	if f.dryRun && (f.kubeconfig == "" || len(f.contexts) > 0) {
		return fmt.Errorf("--dry-run lists what a run would make in a cluster whose apiservers it finds: it goes with --kubeconfig FILE and without --contexts")
	}
	if f.makesCluster() {
		var given []string
		for _, x := range []struct {
			flag string
			set  bool
		}{{"--contexts", len(f.contexts) > 0}, {"--user-contexts", len(f.userContexts) > 0}, {"--context", f.context != ""},
			{"--upstream", f.upstream}, {"--audit-logs", len(f.auditLogs) > 0}} {
			if x.set {
				given = append(given, x.flag)
			}
		}
		if len(given) > 0 {
			return fmt.Errorf("%s describe(s) an existing target, which --kubeconfig names, and it is not given: give --kubeconfig FILE, or drop %s to test a local cluster skewcheck makes",
				strings.Join(given, ", "), strings.Join(given, ", "))
		}
		if len(f.servers.versions) == 1 {
			if needs := peerProfiles(tests); len(needs) > 0 {
				return fmt.Errorf("--versions %s makes one apiserver, which has no peer, and %s test(s) what servers do for one another: give two or more --versions (e.g. --versions v1.35.4,v1.36.3), or leave out %s",
					f.servers.versions[0], strings.Join(needs, ", "), strings.Join(needs, ", "))
			}
		}
	}
	return nil
}

// peerProfiles names the profiles of the selected tests that are about peers
// (framework.Profile.Peers: the soak profiles too).
func peerProfiles(tests []framework.Test) []string {
	return suites.Where(profilesOf(tests), func(p framework.Profile) bool { return p.Peers })
}

// settle completes the flags with what the run implies (the default skew and dataplane,
// each said in a line) and refuses every combination that cannot run, before anything
// starts.
func (f *conformanceFlags) settle(ctx context.Context, streams IOStreams) error {
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
	if f.provider.podNetwork && f.dataplane.chosen() != "" {
		return fmt.Errorf("--pod-network runs kube-proxy on every node, and the dataplane under test (--dataplane %s, for the ipmode profile) must be the only program of the nodes' netfilter: drop --pod-network, or leave the ipmode profile out (--profiles)", f.dataplane.chosen())
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
	return nil
}
