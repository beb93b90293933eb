package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/stack"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/suites"
)

// stackSpec is the stack the flags ask for, in one of three kinds: the apiservers of a
// cluster that runs, found (--kubeconfig alone, --in-cluster); the endpoints --contexts
// names; or a cluster the provider makes, with the front and the dataplane chosen.
func (f *conformanceFlags) stackSpec(streams IOStreams) (stack.Spec, error) {
	spec := stack.Spec{ProxyState: true, Progress: streams.ErrOut}
	declared := func(t *framework.Target) error {
		t.Upstream, t.UpstreamDeclared = f.upstream, f.upstream
		return attachAuditLogs(t, f.auditLogs)
	}
	switch {
	case (f.kubeconfig != "" && len(f.contexts) == 0) || f.inCluster:
		// The existing provider: a cluster that runs, its apiservers found.
		spec.Provider, spec.Amend = existing.ProviderName, declared
		spec.Cluster = clusters.Spec{Kubeconfig: f.kubeconfig, Context: f.context, InCluster: f.inCluster, Progress: streams.ErrOut}
		return spec, nil
	case f.kubeconfig != "":
		spec.Contexts, spec.Amend = &stack.Contexts{Kubeconfig: f.kubeconfig, Admin: f.contexts, User: f.userContexts, Owned: f.owned}, declared
		return spec, nil
	}
	specs, err := f.servers.specs()
	if err != nil {
		return spec, err
	}
	if err := f.reference.apply(specs); err != nil {
		return spec, err
	}
	f.gateway.specs(specs)
	if f.sidecar.Enabled() {
		for i := range specs {
			specs[i].DisablePeerProxy = true // the sidecar does the proxy's job
		}
	}
	// Tests of network faults act on forwarders in front of each peer address: the
	// cluster gets them when a selected test needs them (faults.PeerPath), whatever its
	// profile is called.
	peerPaths := len(suites.Where(f.run.Profiles, func(p framework.Profile) bool { return p.NeedsFeature(faults.PeerPath) })) > 0
	spec.Provider = f.provider.name
	spec.Cluster = f.provider.spec(clusters.Spec{Name: "conformance", Servers: specs, Port: f.servers.port,
		Binaries: f.binaries, Progress: streams.ErrOut, ConvergeTimeout: f.timeouts.Converge, PeerPaths: peerPaths})
	spec.Dataplane = f.dataplane.layer(f.binaries, f.run.ReportDir)
	spec.Front, spec.FrontName, err = f.front(streams)
	return spec, err
}

// front is what the flags put before the apiservers of the cluster the run makes, and
// what the progress calls it as it starts: a gateway, the vendor's sidecar or a reference
// (at most one: validated), or none.
func (f *conformanceFlags) front(streams IOStreams) (front.Front, string, error) {
	switch {
	case f.gateway.enabled():
		g, err := f.gateway.front(streams, f.run.ReportDir)
		return g, "", err
	case f.sidecar.Enabled():
		cfg := f.sidecar // the flags as typed; what the run adds goes into its copy
		cfg.Progress = streams.ErrOut
		// The sidecars' logs go with the report, which outlives the cluster's directory
		// and a container's output: a vendor whose proxy failed reads why there.
		cfg.Dir = filepath.Join(f.run.ReportDir, "sidecar")
		return cfg, "", os.MkdirAll(cfg.Dir, 0o755)
	case f.reference.name != "":
		return f.reference.front(), "the reference " + f.reference.name, nil
	}
	return nil, "", nil
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

// wordBuildError says in the flags' words what a provider, a front or the dataplane
// refused (Run's wording of every error on its way out leaves it as it is).
func (f *conformanceFlags) wordBuildError(err error) error {
	return f.dataplane.word(wordError(err))
}
