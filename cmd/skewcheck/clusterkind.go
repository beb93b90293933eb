package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/kind"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// Providers for --provider.
const (
	providerLocal = "local"
	providerKind  = "kind"
)

// addNodeImageFlag adds --node-image: kind node images the user has (or can pull), used
// instead of the ones skewcheck builds offline.
func addNodeImageFlag(cmd *cobra.Command, refs *[]string) {
	cmd.Flags().StringSliceVar(refs, "node-image", nil, "with --provider kind: a kind node image to use instead of building skewcheck's, for the Kubernetes version it carries, "+
		"which --versions must name (kindest/node:v1.35.0; pulled when missing, so a registry must be reachable); repeat it or separate with commas, one per version")
}

func checkProvider(p string) error {
	if p != providerLocal && p != providerKind {
		return fmt.Errorf("unknown provider %q: use %q (processes on this machine, the default) or %q (kind nodes in Docker)", p, providerLocal, providerKind)
	}
	return nil
}

// createKind makes a kind cluster, one control-plane node per version, and records it in
// the registry so list, skew and delete find it like a local cluster.
func createKind(ctx context.Context, name string, sf serverFlags, nodeImages []string, bin binaries.Options, wait time.Duration) error {
	if len(sf.noPeerProxy) > 0 || len(sf.peerAdvertise) > 0 {
		return errors.New("--no-peer-proxy and --peer-advertise are not supported with --provider kind yet; --server-flag is")
	}
	specs, err := sf.specs()
	if err != nil {
		return err
	}
	if rec, err := registry.Read(name); err == nil {
		return fmt.Errorf("a cluster named %q already exists (provider %q): delete it with `skewcheck cluster delete --name %s`, or choose another --name", name, providerOf(rec), name)
	}
	if _, err := os.Stat(registry.ClusterDir(name)); err == nil && registry.Supervisor(name) != 0 {
		return fmt.Errorf("a local cluster named %q is starting: choose another --name", name)
	}
	cfg := kind.Config{Name: name, Binaries: bin, NodeImages: nodeImages, Progress: os.Stderr, ServerFlags: map[int][]string{},
		Dir: filepath.Join(registry.ClusterDir(name), "kind")}
	for i, s := range specs {
		cfg.Versions = append(cfg.Versions, s.Version)
		cfg.ServerFlags[i+1] = s.ExtraFlags
	}
	// Ctrl-C or SIGTERM while creating removes everything made so far.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	c, err := kind.Create(ctx, cfg)
	if err != nil {
		os.RemoveAll(registry.ClusterDir(name))
		return err
	}
	rec := registry.Record{Name: name, Provider: providerKind, Kubeconfig: c.Kubeconfig, Created: time.Now(),
		Ready: c.Timings.Ready, Converged: c.Timings.Converged}
	for _, s := range c.Servers {
		rec.Servers = append(rec.Servers, registry.Server{Name: s.Name, Version: s.Version, URL: s.URL, Hostname: s.Node, PeerProxy: true, AuditLog: s.AuditLog,
			Admin: kind.ContextName(name, s.Name, kind.Admin), User: kind.ContextName(name, s.Name, kind.Unprivileged)})
	}
	if err := registry.Write(rec); err != nil {
		return err
	}
	fmt.Printf("kind cluster %s is ready: node images in %v, kind create in %v, every apiserver /readyz at %v, converged at %v\n", kind.KindName(name),
		c.Timings.Images.Round(time.Second), c.Timings.Create.Round(time.Second), c.Timings.Ready.Round(time.Second), c.Timings.Converged.Round(time.Second))
	fmt.Printf("kubeconfig: %s\n", c.Kubeconfig)
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tVERSION\tNODE\tURL\tADMIN CONTEXT\tUSER CONTEXT")
	for _, s := range c.Servers {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Version, s.Node, s.URL, kind.ContextName(name, s.Name, kind.Admin), kind.ContextName(name, s.Name, kind.Unprivileged))
	}
	if c.LoadBalancer != "" {
		fmt.Fprintf(w, "load balancer\t\t%s\t%s\t%s\t%s\n", kind.KindName(name)+"-external-load-balancer", c.LoadBalancer, kind.ContextName(name, "lb", kind.Admin), kind.ContextName(name, "lb", kind.Unprivileged))
	}
	w.Flush()
	fmt.Printf("delete it with: skewcheck cluster delete --name %s\n", name)
	return nil
}

func providerOf(r registry.Record) string {
	if r.Provider == "" {
		return providerLocal
	}
	return r.Provider
}

// deleteKind removes a kind cluster and its record.
func deleteKind(ctx context.Context, name string) error {
	if err := kind.Delete(ctx, name, filepath.Join(registry.ClusterDir(name), "kind")); err != nil {
		return err
	}
	return registry.Remove(name)
}

// kindStatus says whether a recorded kind cluster still has its nodes.
func kindStatus(name string) string {
	names, err := kind.Names()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, n := range names {
		if n == name {
			return "running"
		}
	}
	return "gone (delete it)"
}

// kindConformanceTarget makes a kind cluster for one conformance run; cleanup deletes it.
// A dataplane runs on one of its nodes.
func kindConformanceTarget(ctx context.Context, f *conformanceFlags) (*framework.Target, dataplaneHost, func(), error) {
	if f.kubeconfig != "" || f.reference.name != "" || f.sidecar.Enabled() || f.gateway.enabled() {
		return nil, nil, nil, errors.New("--provider kind runs the suites against upstream kube-apiservers in kind nodes: it cannot go with --kubeconfig, --reference, --sidecar-* or --gateway yet (--dataplane it can)")
	}
	if len(f.servers.noPeerProxy) > 0 || len(f.servers.peerAdvertise) > 0 {
		return nil, nil, nil, errors.New("--no-peer-proxy and --peer-advertise are not supported with --provider kind yet; --server-flag is")
	}
	specs, err := f.servers.specs()
	if err != nil {
		return nil, nil, nil, err
	}
	t, c, cleanup, err := kindRunTarget(ctx, specs, f.provider.nodeImages, f.binaries, f.timeouts.Converge)
	if err != nil {
		return nil, nil, nil, err
	}
	return t, c, cleanup, nil
}

// kindChaosTarget is the kind cluster of one chaos run, with the default bounds.
func kindChaosTarget(ctx context.Context, specs []clusters.ServerSpec, nodeImages []string, bin binaries.Options) (*framework.Target, func(), error) {
	t, _, cleanup, err := kindRunTarget(ctx, specs, nodeImages, bin, framework.DefaultTimeouts().Converge)
	return t, cleanup, err
}

// kindRunTarget makes the kind cluster of one run (named by its pid) with a node per spec,
// and its target; cleanup deletes the cluster.
func kindRunTarget(ctx context.Context, specs []clusters.ServerSpec, nodeImages []string, bin binaries.Options, converge time.Duration) (*framework.Target, *kind.Cluster, func(), error) {
	sweepKindConformance()
	name := fmt.Sprintf("%s%d", kindConformancePrefix, os.Getpid())
	dir, err := os.MkdirTemp("", "skewcheck-kind-conformance-")
	if err != nil {
		return nil, nil, nil, err
	}
	cfg := kind.Config{Name: name, Binaries: bin, NodeImages: nodeImages, Progress: os.Stderr, ServerFlags: map[int][]string{}, Dir: dir, ConvergeTimeout: converge}
	for i, s := range specs {
		cfg.Versions = append(cfg.Versions, s.Version)
		cfg.ServerFlags[i+1] = s.ExtraFlags
	}
	c, err := kind.Create(ctx, cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, nil, err
	}
	cleanup := func() {
		fmt.Fprintln(os.Stderr, "deleting the kind cluster")
		if err := kind.Delete(context.Background(), name, dir); err != nil {
			fmt.Fprintln(os.Stderr, "warning:", err)
		}
	}
	fmt.Fprintf(os.Stderr, "kind cluster %s: kind create %v, converged %v after the start\n", kind.KindName(name), c.Timings.Create.Round(time.Second), c.Timings.Converged.Round(time.Second))
	t, err := c.Target(ctx)
	if err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return t, c, cleanup, nil
}

// kindConformancePrefix names the kind cluster of one run (conformance, chaos, upgrade),
// with its pid.
const kindConformancePrefix = "conformance-"

// sweepKindConformance deletes the kind clusters of conformance runs whose process is gone
// (SIGKILLed before it could delete its own).
func sweepKindConformance() {
	names, err := kind.Names()
	if err != nil {
		return
	}
	for _, n := range names {
		if process.OwnerGone(n, kindConformancePrefix, "-") {
			fmt.Fprintf(os.Stderr, "deleting kind cluster %s, left by a conformance run that is gone\n", kind.KindName(n))
			dir, err := os.MkdirTemp("", "skewcheck-kind-sweep-")
			if err != nil {
				return
			}
			if err := kind.Delete(context.Background(), n, dir); err != nil {
				fmt.Fprintln(os.Stderr, "warning:", err)
			}
		}
	}
}

// kindWithoutRecord lists skewcheck's kind clusters that have nodes but no record (its
// directory was removed): `cluster delete` still removes them. Without Docker, none.
func kindWithoutRecord(recorded []string) []string {
	names, err := kind.Names()
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if !slices.Contains(recorded, n) && !strings.HasPrefix(n, kindConformancePrefix) {
			out = append(out, n)
		}
	}
	return out
}

// kindUpgradeCluster makes the rolling upgrade's cluster of kind nodes, deleted at its end.
func kindUpgradeCluster(bin binaries.Options) func(ctx context.Context, from string, servers int) (upgrade.Cluster, error) {
	return func(ctx context.Context, from string, servers int) (upgrade.Cluster, error) {
		sweepKindConformance()
		name := fmt.Sprintf("%s%d", kindConformancePrefix, os.Getpid())
		dir, err := os.MkdirTemp("", "skewcheck-kind-upgrade-")
		if err != nil {
			return nil, err
		}
		cfg := kind.Config{Name: name, Binaries: bin, Progress: os.Stderr, Dir: dir}
		for i := 0; i < servers; i++ {
			cfg.Versions = append(cfg.Versions, from)
		}
		c, err := kind.Create(ctx, cfg)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		return kindUpgrade{Cluster: c, dir: dir, bin: bin}, nil
	}
}

// kindUpgrade is a kind cluster as the rolling upgrade sees it.
type kindUpgrade struct {
	*kind.Cluster
	dir string
	bin binaries.Options
}

func (k kindUpgrade) Members() []upgrade.Member {
	out := make([]upgrade.Member, len(k.Servers))
	for i := range k.Servers {
		out[i] = kindMember{k: k, i: i}
	}
	return out
}

func (k kindUpgrade) Delete() error {
	fmt.Fprintln(os.Stderr, "deleting the kind cluster")
	return kind.Delete(context.Background(), k.Name, k.dir)
}

type kindMember struct {
	k kindUpgrade
	i int
}

func (m kindMember) Name() string    { return m.k.Servers[m.i].Name }
func (m kindMember) Version() string { return m.k.Servers[m.i].Version }
func (m kindMember) Restart(ctx context.Context, version string) error {
	return m.k.Upgrade(ctx, m.Name(), version, m.k.bin, os.Stderr)
}
