package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

// existingTarget finds every apiserver of the cluster that the kubeconfig's context
// reaches (clusters/existing), asks each at its own address, and says what it found and
// what skew that gives, before any test runs.
func existingTarget(ctx context.Context, streams IOStreams, kubeconfig, contextName string) (*framework.Target, error) {
	base, err := framework.RestConfig(kubeconfig, contextName)
	if err != nil {
		return nil, err
	}
	found, err := existing.Discover(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("finding the apiservers of %s (kubeconfig %s): %w", base.Host, kubeconfig, err)
	}
	t, err := found.Target(ctx, base, nil)
	if err != nil {
		return nil, err
	}
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
	fmt.Fprintln(streams.ErrOut, existing.Skew(t))
	return t, nil
}
