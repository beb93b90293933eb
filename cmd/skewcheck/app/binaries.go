package app

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
)

func newBinariesCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "binaries", Short: "Find, build or download the Kubernetes binaries skewcheck runs"}
	var versions, components []string
	var opts binaries.Options
	ensure := &cobra.Command{
		Use:   "ensure",
		Short: "Make sure each component is cached for each version, downloading the release binary or building it from the Go module proxy if needed",
		Example: "  skewcheck binaries ensure --versions v1.35.4,v1.36.3\n" +
			"  skewcheck binaries ensure --versions v1.36.3 --components kube-apiserver,kube-proxy\n" +
			"  skewcheck binaries ensure --versions 1.36 --source download",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Progress = streams.ErrOut
			for _, v := range versions {
				resolved, err := binaries.Resolve(cmd.Context(), v)
				if err != nil {
					return err
				}
				for _, c := range components {
					path, err := binaries.Ensure(cmd.Context(), binaries.Component(c), resolved, opts)
					if err != nil {
						return err
					}
					fmt.Fprintf(streams.Out, "%s %s: %s\n", c, resolved, path)
				}
			}
			return nil
		},
	}
	ensure.Flags().StringSliceVar(&versions, "versions", slices.Clone(clusters.DefaultVersions), "versions to make sure of (v1.35.4, 1.36 for the newest 1.36.x, latest)")
	ensure.Flags().StringSliceVar(&components, "components", []string{string(binaries.KubeAPIServer)}, "components to make sure of: kube-apiserver, kube-proxy, kube-controller-manager, kube-scheduler, kubelet, kubeadm, kubectl")
	addBinaryFlags(ensure, &opts)
	cmd.AddCommand(ensure)
	return cmd
}

// addBinaryFlags adds the flags that say where binaries come from to any command that needs them.
func addBinaryFlags(cmd *cobra.Command, opts *binaries.Options) {
	cmd.Flags().StringVar(&opts.CacheDir, "cache-dir", "", "binary cache (default $SKEWCHECK_CACHE, $XDG_CACHE_HOME/skewcheck or ~/.cache/skewcheck)")
	cmd.Flags().StringVar(&opts.Source, "source", "auto", "where missing binaries come from: auto (cache, download from dl.k8s.io, build from the Go module proxy), build, download, cache")
	cmd.Flags().StringToStringVar(&opts.Paths, "binary", nil, "explicit binaries, component@version=path, e.g. kube-apiserver@v1.36.3=/usr/local/bin/kube-apiserver (also $SKEWCHECK_BINARIES)")
}
