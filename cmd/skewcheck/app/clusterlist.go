//go:build !incluster

package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/registry"
)

// listedCluster is one line of cluster list, and one object of -o json and -o yaml
// (registry.Entry, named in lowerCamel for scripts).
type listedCluster struct {
	Name       string   `json:"name"`
	Provider   string   `json:"provider"`
	Status     string   `json:"status"`
	Versions   []string `json:"versions"`
	Kubeconfig string   `json:"kubeconfig"`
}

func newListCommand(streams IOStreams) *cobra.Command {
	var output outputFormat
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the named clusters on this machine",
		Example: "  skewcheck cluster list\n  skewcheck cluster list -o json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			entries, err := registry.List()
			if err != nil {
				return err
			}
			return printClusters(streams.Out, entries, output)
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}

// printClusters prints the named clusters as a table, or as JSON or YAML.
func printClusters(out io.Writer, entries []registry.Entry, output outputFormat) error {
	rows := make([]listedCluster, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, listedCluster{Name: e.Name, Provider: e.Provider, Status: e.Status, Versions: append([]string{}, e.Versions...), Kubeconfig: e.Kubeconfig})
	}
	return output.print(out, rows, func() error {
		if len(rows) == 0 {
			_, err := fmt.Fprintln(out, "no clusters; create one with: skewcheck cluster create --name NAME --versions v1.35.4,v1.36.3")
			return err
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tPROVIDER\tSTATUS\tVERSIONS\tKUBECONFIG")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Provider, r.Status, strings.Join(r.Versions, ","), r.Kubeconfig)
		}
		return w.Flush()
	})
}
