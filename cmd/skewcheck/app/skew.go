//go:build !incluster

package app

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func newSkewCommand(streams IOStreams) *cobra.Command {
	var f skewFlags
	var output outputFormat
	cmd := &cobra.Command{
		Use:   "skew",
		Short: "Print the GVRs some servers serve and others do not, from each server's own (nopeer) discovery",
		Long: `Asks each apiserver what it serves itself (nopeer discovery) and prints what some serve and
others do not. Without --kubeconfig, --context or --contexts it asks the servers of the local
cluster --name. With any of them it reads the kubeconfig as kubectl does (--kubeconfig,
else $KUBECONFIG, else ~/.kube/config) and finds every apiserver behind --context (the
current one by default) as conformance --kubeconfig does, or asks the --contexts, one per
apiserver.`,
		Example: "  skewcheck cluster skew --name skew\n" +
			"  skewcheck cluster skew --context prod\n" +
			"  skewcheck cluster skew --name skew -o json\n" +
			"  skewcheck cluster skew --kubeconfig ~/.kube/config --contexts apiserver-a,apiserver-b",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			servers, err := f.servers(cmd.Context(), streams)
			if err != nil {
				return err
			}
			byServer := map[string]discovery.Set{}
			for _, s := range servers {
				set, err := discovery.Served(cmd.Context(), s.config)
				if err != nil {
					return fmt.Errorf("asking %s what it serves: %w", s.name, err)
				}
				byServer[s.name] = set
			}
			// -o json and yaml print discovery.Skew as its package names it: each GVR
			// whole (group, version, resource, kind, ...), servedBy and missingFrom.
			skew := append([]discovery.Skew{}, discovery.Compare(byServer)...)
			return output.print(streams.Out, skew, func() error {
				if len(skew) == 0 {
					_, err := fmt.Fprintf(streams.Out, "no skew: all %d servers serve the same GVRs\n", len(servers))
					return err
				}
				w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "GVR\tSERVED BY\tMISSING FROM")
				for _, s := range skew {
					fmt.Fprintf(w, "%s\t%s\t%s\n", s.GVR.Key(), strings.Join(s.ServedBy, ","), strings.Join(s.Missing, ","))
				}
				return w.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&f.name, "name", "skewcheck", "local cluster name")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "an existing cluster's kubeconfig instead of a local cluster (default with --context or --contexts: as kubectl finds it, $KUBECONFIG or ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "an existing cluster's context, whose apiservers are found (default with --kubeconfig: its current context)")
	cmd.Flags().StringSliceVar(&f.contexts, "contexts", nil, "an existing cluster's contexts instead, one per apiserver")
	addOutputFlag(cmd, &output)
	return cmd
}
