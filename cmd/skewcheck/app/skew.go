//go:build !incluster

package app

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func newSkewCommand(streams IOStreams) *cobra.Command {
	var name, kubeconfig string
	var contexts []string
	cmd := &cobra.Command{
		Use:   "skew",
		Short: "Print the GVRs some servers serve and others do not, from each server's own (nopeer) discovery",
		Example: "  skewcheck cluster skew --name skew\n" +
			"  skewcheck cluster skew --kubeconfig ~/.kube/config --contexts apiserver-a,apiserver-b",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kubeconfig == "" {
				rec, err := registry.Read(name)
				if err != nil {
					return fmt.Errorf("reading cluster %q: %v: is it running? (skewcheck cluster list)", name, err)
				}
				kubeconfig = rec.Kubeconfig
				for _, s := range rec.Servers {
					contexts = append(contexts, s.Admin)
				}
			}
			// Loaded as every kubeconfig target is; no context is ErrNoContexts, which Run
			// words with --contexts.
			cfgs, err := framework.RestConfigs(kubeconfig, contexts)
			if err != nil {
				return err
			}
			byServer := map[string]discovery.Set{}
			for i, cfg := range cfgs {
				set, err := discovery.Served(cmd.Context(), cfg)
				if err != nil {
					return fmt.Errorf("context %s: %w", contexts[i], err)
				}
				byServer[contexts[i]] = set
			}
			skew := discovery.Compare(byServer)
			if len(skew) == 0 {
				fmt.Fprintf(streams.Out, "no skew: all %d servers serve the same GVRs\n", len(contexts))
				return nil
			}
			w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "GVR\tSERVED BY\tMISSING FROM")
			for _, s := range skew {
				fmt.Fprintf(w, "%s\t%s\t%s\n", s.GVR.Key(), strings.Join(s.ServedBy, ","), strings.Join(s.Missing, ","))
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&name, "name", "skewcheck", "local cluster name")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "an existing cluster's kubeconfig instead of a local cluster")
	cmd.Flags().StringSliceVar(&contexts, "contexts", nil, "with --kubeconfig: one context per apiserver")
	return cmd
}
