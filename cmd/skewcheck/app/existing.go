package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// dryRunExisting finds the apiservers of the cluster the kubeconfig's context reaches and
// prints what a run of the tests opts selects would make there and the rights it needs,
// making nothing.
func dryRunExisting(ctx context.Context, streams IOStreams, kubeconfig, contextName string, opts framework.RunOptions) error {
	fp := existing.NewFootprint(time.Now())
	plan, err := existingPlan(fp, opts)
	if err != nil {
		return err
	}
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
	fmt.Fprintf(streams.Out, "found %d apiservers behind %s: %s\n", len(found.Servers), base.Host, strings.Join(addrs, ", "))
	fmt.Fprintf(streams.Out, "%s, of profiles %s%s, would, as the kubeconfig's user:\n", fp, strings.Join(opts.Profiles, ","), selection(opts))
	plan.Print(streams.Out)
	return nil
}

// existingPlan is the plan of a run in fp of the tests opts selects: its profiles, then
// --focus and --skip, as the run chooses them.
func existingPlan(fp existing.Footprint, opts framework.RunOptions) (existing.Plan, error) {
	tests, err := framework.Select(suites.All(), opts.Profiles)
	if err != nil {
		return existing.Plan{}, err
	}
	tests, err = framework.Focus(tests, opts.Focus, opts.Skip)
	if err != nil {
		return existing.Plan{}, err
	}
	return existing.NewPlan(fp, tests), nil
}

// selection is what --focus and --skip add to the profiles, for the plan's first line.
func selection(opts framework.RunOptions) string {
	var s string
	if opts.Focus != "" {
		s += " focused on " + opts.Focus
	}
	if opts.Skip != "" {
		s += " skipping " + opts.Skip
	}
	return s
}
