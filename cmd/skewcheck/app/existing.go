package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

// existingTarget finds every apiserver of the cluster that the kubeconfig's context
// reaches (clusters/existing), asks each at its own address, and says what it found and
// what skew that gives, before any test runs. The run makes its own namespace and
// unprivileged ServiceAccount (existing.Footprint); cleanup removes them and everything
// the tests labelled with the run, whatever way the run ends. With dryRun it makes nothing
// and prints what a run would make.
func existingTarget(ctx context.Context, streams IOStreams, kubeconfig, contextName string, dryRun bool) (*framework.Target, func(), error) {
	base, err := framework.RestConfig(kubeconfig, contextName)
	if err != nil {
		return nil, nil, err
	}
	found, err := existing.Discover(ctx, base)
	if err != nil {
		return nil, nil, fmt.Errorf("finding the apiservers of %s (kubeconfig %s): %w", base.Host, kubeconfig, err)
	}
	fp := existing.NewFootprint(time.Now())
	if dryRun {
		fmt.Fprintf(streams.Out, "found %d apiservers behind %s: %s\n", len(found.Servers), base.Host, addresses(found))
		fmt.Fprintf(streams.Out, "a run (%s) would, as the kubeconfig's user:\n", fp)
		for _, line := range fp.Plan() {
			fmt.Fprintln(streams.Out, "  - "+line)
		}
		return nil, func() {}, nil
	}
	fmt.Fprintf(streams.ErrOut, "making %s\n", fp)
	cleanup := func() {
		// The run's context may be cancelled (an interrupt): removal gets its own.
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		fmt.Fprintf(streams.ErrOut, "removing %s\n", fp)
		if err := fp.Remove(rctx, base); err != nil {
			fmt.Fprintf(streams.ErrOut, "warning: %v (remove it with kubectl delete ns %s and kubectl delete crd,clusterrole,clusterrolebinding -l %s=%s)\n", err, fp.Namespace(), framework.RunLabel, fp.Run)
		}
	}
	user, err := fp.Make(ctx, base)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	t, err := found.Target(ctx, base, user)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	t.Namespace, t.Run = fp.Namespace(), fp.Run
	printFound(streams, base, found, t)
	return t, cleanup, nil
}

func addresses(f *existing.Found) string {
	var out []string
	for _, s := range f.Servers {
		out = append(out, s.Address)
	}
	return strings.Join(out, ", ")
}

// printFound lists the servers found, with what each is and the skew they make.
func printFound(streams IOStreams, base *rest.Config, found *existing.Found, t *framework.Target) {
	fmt.Fprintf(streams.ErrOut, "found %d apiservers behind %s (default/kubernetes), each asked at its own address as %s:\n", len(t.Endpoints), base.Host, existing.ServingName)
	w := tabwriter.NewWriter(streams.ErrOut, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  NAME\tADDRESS\tVERSION\tIDENTITY LEASE")
	for i, s := range found.Servers {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", t.Endpoints[i].Name, s.Address, t.Endpoints[i].Version, cmp.Or(s.Lease, "(not matched)"))
	}
	w.Flush()
	if len(found.UnmatchedLeases) > 0 {
		fmt.Fprintf(streams.ErrOut, "  identity leases no address was matched to (no peer-advertise address): %s\n", strings.Join(found.UnmatchedLeases, ", "))
	}
	if found.LeasesUnreadable != "" {
		fmt.Fprintf(streams.ErrOut, "  %s: the servers go by their addresses\n", found.LeasesUnreadable)
	}
	fmt.Fprintf(streams.ErrOut, "  the unprivileged user is %s (a ServiceAccount of the run)\n", t.Endpoints[0].UserName)
	fmt.Fprintln(streams.ErrOut, existing.Skew(t))
}
