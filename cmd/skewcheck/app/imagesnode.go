//go:build !incluster

package app

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
)

func newNodeImageCommand(streams IOStreams) *cobra.Command {
	var version string
	var bin binaries.Options
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Build a kind node image of one Kubernetes version offline, and kind's load-balancer look-alike",
		Long: `Builds ` + nodeimage.Repository + `:<version> in the local Docker engine with nothing pulled:
a Debian root filesystem made with debootstrap (systemd, containerd, runc, CNI plugins,
iptables, nftables), kubelet, kubeadm and kubectl of that version built from the Go module
proxy, and the images kubeadm runs (kube-apiserver, kube-controller-manager, kube-scheduler,
etcd, pause) made from binaries and loaded into the node's containerd at boot. CoreDNS,
kube-proxy and kind's default CNI are not in it: the kind provider turns them off.

It also makes ` + nodeimage.LoadBalancerImage + `, the image kind runs in front of several
control-plane nodes, as haproxy behind a stand-in for envoy's command.

Everything is cached: binaries and the root filesystem in the cache directory, the image in
the engine under a label of its content.`,
		Example: "  skewcheck images node --version v1.36.3",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if version == "" {
				return errors.New("--version is required (v1.36.3, 1.36 or latest)")
			}
			// Ctrl-C stops debootstrap and the builds, and removes their work directories.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := nodeimage.Options{Version: version, Binaries: bin, Progress: streams.ErrOut}
			res, err := nodeimage.Build(ctx, opts)
			if err != nil {
				return err
			}
			if _, err := nodeimage.BuildLoadBalancer(ctx, opts); err != nil {
				return err
			}
			fmt.Fprintln(streams.Out, res.Ref)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "Kubernetes version of the node")
	addBinaryFlags(cmd, &bin)
	return cmd
}
