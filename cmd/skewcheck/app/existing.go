package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

// dryRunExisting finds the apiservers of the cluster the kubeconfig's context reaches and
// prints what a run would make there and the rights it needs, making nothing.
func dryRunExisting(ctx context.Context, streams IOStreams, kubeconfig, contextName string) error {
	base, err := framework.RestConfig(kubeconfig, contextName)
	if err != nil {
		return err
	}
	found, err := existing.Discover(ctx, base)
	if err != nil {
		return fmt.Errorf("finding the apiservers of %s (kubeconfig %s): %w", base.Host, kubeconfig, err)
	}
	var addrs []string
	for _, s := range found.Servers {
		addrs = append(addrs, s.Address)
	}
	fp := existing.NewFootprint(time.Now())
	fmt.Fprintf(streams.Out, "found %d apiservers behind %s: %s\n", len(found.Servers), base.Host, strings.Join(addrs, ", "))
	fmt.Fprintf(streams.Out, "a run (%s) would, as the kubeconfig's user:\n", fp)
	for _, line := range fp.Plan() {
		fmt.Fprintln(streams.Out, "  - "+line)
	}
	return nil
}
