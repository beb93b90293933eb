//go:build !incluster

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

func newClusterCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "cluster", Short: "Create, list, inspect and delete named skewed control planes"}
	cmd.AddCommand(newCreateCommand(streams), newListCommand(streams), newDeleteCommand(streams), newSkewCommand(streams), newSuperviseCommand(streams))
	return cmd
}

// frontPlan is what create asks the supervisor to put in front of the cluster
// (registry.Plan's Front).
type frontPlan struct {
	Reference   string        `json:"reference,omitempty"`
	Flaw        string        `json:"flaw,omitempty"`
	PeerTimeout time.Duration `json:"peerTimeout,omitempty"`
}

func newCreateCommand(streams IOStreams) *cobra.Command {
	var name string
	var sf serverFlags
	var bin binaries.Options
	var wait time.Duration
	var ref referenceFlags
	var prov providerFlags
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Start a control plane of real kube-apiservers, one per version, that keeps running after this command",
		Example: "  skewcheck cluster create --name skew --versions v1.35.4,v1.36.3\n" +
			"  skewcheck cluster create --name off --versions v1.35.4,v1.36.3 --no-peer-proxy 1\n" +
			"  skewcheck cluster create --name nodes --provider kind --versions v1.35.4,v1.36.3",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := registry.CheckName(name); err != nil {
				return err
			}
			caps := []clusters.Capability{clusters.Named}
			if ref.name != "" {
				caps = append(caps, clusters.Fronts, clusters.NamedFronts)
			}
			if err := prov.require(caps...); err != nil {
				return err
			}
			if err := sf.checkPort(); err != nil {
				return err
			}
			specs, err := sf.specs()
			if err != nil {
				return err
			}
			if err := ref.apply(specs); err != nil {
				return err
			}
			p := registry.Plan{Provider: prov.name, Spec: prov.spec(clusters.Spec{Servers: specs, Port: sf.port, Binaries: bin})}
			if ref.name != "" {
				p.Front, _ = json.Marshal(frontPlan{Reference: ref.name, Flaw: ref.flaw, PeerTimeout: ref.peerTimeout})
			}
			// Ctrl-C or SIGTERM while creating removes everything made so far.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			rec, err := registry.Create(ctx, name, p, []string{"cluster", "supervise", "--name", name}, streams.ErrOut)
			if err != nil {
				return wordError(err)
			}
			printCreated(streams.Out, rec)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "skewcheck", "cluster name")
	cmd.Flags().DurationVar(&wait, "wait", 20*time.Minute, "how long to wait for the cluster, including building binaries and images that are not cached")
	prov.add(cmd)
	sf.add(cmd)
	ref.add(cmd)
	addBinaryFlags(cmd, &bin)
	return cmd
}

func printCreated(out io.Writer, r registry.Record) {
	fmt.Fprintf(out, "cluster %s (provider %s) is ready: every server /readyz in %v, converged in %v\n", r.Name, r.Provider, r.Ready.Round(time.Millisecond), r.Converged.Round(time.Millisecond))
	fmt.Fprintf(out, "kubeconfig: %s\n", r.Kubeconfig)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tVERSION\tHOST\tURL\tPEER PROXY\tADMIN CONTEXT\tUSER CONTEXT")
	for _, s := range r.Servers {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\t%s\t%s\n", s.Name, s.Version, s.Hostname, s.URL, s.PeerProxy, s.Admin, s.User)
	}
	for _, s := range r.Servers {
		if s.Proxy != nil {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", "reference in front of "+s.Name, "", "", s.Proxy.URL, "reference", s.Proxy.Admin, s.Proxy.User)
		}
	}
	if lb := r.LoadBalancer; lb != nil {
		fmt.Fprintf(w, "load balancer\t\t%s\t%s\t\t%s\t%s\n", lb.Host, lb.URL, lb.Admin, lb.User)
	}
	w.Flush()
	fmt.Fprintf(out, "try: kubectl --kubeconfig %s --context %s get --raw /version\n", r.Kubeconfig, r.Servers[0].Admin)
	fmt.Fprintf(out, "delete it with: skewcheck cluster delete --name %s\n", r.Name)
}

// superviseCommand is the detached process that owns a named cluster a supervisor holds
// (registry.Supervise): embedded etcd lives in it and every apiserver is its child, so
// SIGTERM to it tears everything down.
func newSuperviseCommand(streams IOStreams) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:    "supervise",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return registry.Supervise(ctx, name, func(ctx context.Context, c clusters.Cluster, raw json.RawMessage, rec *registry.Record) (func(), error) {
				return superviseFront(ctx, streams, c, raw, rec)
			})
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "cluster name")
	return cmd
}

// superviseFront puts the reference peer proxy create asked for in front of the cluster,
// and adds its contexts to the kubeconfig and the record.
func superviseFront(ctx context.Context, streams IOStreams, c clusters.Cluster, raw json.RawMessage, rec *registry.Record) (func(), error) {
	var p frontPlan
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the cluster's plan names a front skewcheck cannot read (%v): delete the cluster and create it again", err)
	}
	if p.Reference == "" {
		return func() {}, nil
	}
	h, ok := c.(clusters.FrontHost)
	if !ok {
		return nil, errors.New("--reference puts the reference peer proxy in front of apiservers this machine reaches: this cluster's provider has none")
	}
	site, err := h.FrontSite(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(streams.Out, "starting a reference peer proxy in front of every apiserver")
	ref := referenceFlags{name: p.Reference, flaw: p.Flaw, peerTimeout: p.PeerTimeout}
	t, stop, err := ref.front().Put(ctx, site)
	if err != nil {
		return nil, err
	}
	if err := addProxyContexts(site, t, rec); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

func newDeleteCommand(streams IOStreams) *cobra.Command {
	var name string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Stop a named cluster (of any provider) and remove everything it made",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := registry.Delete(cmd.Context(), name, timeout)
			if errors.Is(err, registry.ErrNoCluster) {
				return fmt.Errorf("there is no cluster named %q: `skewcheck cluster list` shows the clusters there are", name)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "deleted cluster %s\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "skewcheck", "cluster name")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Minute, "how long to wait for a graceful stop before killing")
	return cmd
}
