//go:build !incluster

package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/reference/ipmode"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

func newReferenceCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{Use: "reference", Short: "Run skewcheck's reference implementations"}
	var c peerproxy.Config
	pp := &cobra.Command{
		Use:   "peerproxy",
		Short: "Run the reference mixed version proxy in front of one kube-apiserver",
		Long: `Runs a sidecar that gives one kube-apiserver the mixed version proxy and peer-aggregated
discovery, whatever its version or gate: a request for a resource its apiserver does not
serve goes to a peer apiserver that does, with the client's identity (also on upgrade
requests), 503 with Retry-After when the peers fail, within --peer-timeout.

Run one per apiserver. Peers find each other through Leases in kube-system; every
apiserver must trust --front-proxy-cert (--requestheader-client-ca-file, allowed names).
SIGTERM stops it gracefully: its lease is deleted so peers stop routing to it at once.`,
		Example: "  skewcheck reference peerproxy --id a --listen 10.0.0.5:7443 --apiserver https://10.0.0.5:6443 \\\n" +
			"    --tls-cert proxy.crt --tls-key proxy.key --client-ca ca.crt --apiserver-ca ca.crt \\\n" +
			"    --front-proxy-cert front-proxy-client.crt --front-proxy-key front-proxy-client.key \\\n" +
			"    --control-cert admin.crt --control-key admin.key --metrics-listen 127.0.0.1:9090",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			p, err := peerproxy.Start(ctx, c)
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.ErrOut, "reference peer proxy %s serving at %s in front of %s\n", c.ID, p.URL(), c.APIServer)
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return p.Shutdown(sctx)
		},
	}
	f := pp.Flags()
	f.StringVar(&c.ID, "id", "", "this proxy's name among its peers (required, unique)")
	f.StringVar(&c.Listen, "listen", "", "address clients connect to, ip:port (required)")
	f.StringVar(&c.APIServer, "apiserver", "", "URL of the fronted kube-apiserver (required)")
	f.StringVar(&c.ServingCert, "tls-cert", "", "serving certificate")
	f.StringVar(&c.ServingKey, "tls-key", "", "serving key")
	f.StringVar(&c.ClientCA, "client-ca", "", "CA that signs client certificates (as --client-ca-file)")
	f.StringVar(&c.ServerCA, "apiserver-ca", "", "CA that signs the apiservers' serving certificates")
	f.StringVar(&c.FrontProxyCert, "front-proxy-cert", "", "client certificate the apiservers trust for X-Remote-* headers")
	f.StringVar(&c.FrontProxyKey, "front-proxy-key", "", "its key")
	f.StringVar(&c.ControlCert, "control-cert", "", "the proxy's own identity (discovery, leases in kube-system, tokenreviews)")
	f.StringVar(&c.ControlKey, "control-key", "", "its key")
	f.StringVar(&c.ServerName, "apiserver-server-name", "kubernetes.default.svc", "name the apiservers' serving certificates are verified against")
	f.StringVar(&c.AdvertiseURL, "advertise-url", "", "URL peers use to reach the fronted apiserver (default --apiserver)")
	f.DurationVar(&c.PeerTimeout, "peer-timeout", peerproxy.DefaultPeerTimeout, "bound on reaching a peer: the time to 503 for a frozen peer")
	f.StringVar(&c.MetricsListen, "metrics-listen", "", "serve Prometheus metrics at /metrics here")
	f.DurationVar(&c.LeaseDuration, "lease-duration", peerproxy.DefaultLeaseDuration, "how long peers keep answering 503 for this server's resources after the proxy itself is gone (a graceful stop ends it at once)")
	cmd.AddCommand(pp, newReferenceIPModeCommand(streams), newReferenceGatewayCommand(streams))
	return cmd
}

func newReferenceIPModeCommand(streams IOStreams) *cobra.Command {
	var c ipmode.Config
	cmd := &cobra.Command{
		Use:   "ipmode",
		Short: "Run the reference load-balancer-IP dataplane (KEP-1860) on this node",
		Long: `Watches Services and EndpointSlices and programs nftables (table ip skewcheck-ipmode) so
that the node's NodePorts reach ready endpoints and a load-balancer ingress IP is
short-circuited only when its ipMode is VIP (or unset); with Proxy, and for hostname-only
ingress, traffic goes to the real load balancer. Needs root and the nft command; removes its
table on SIGTERM.`,
		Example: "  skewcheck reference ipmode --kubeconfig node.kubeconfig --node-name node-1\n" +
			"  skewcheck reference ipmode --kubeconfig node.kubeconfig --node-name node-1 --ignore-ipmode   # a dataplane without KEP-1860",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if c.Kubeconfig == "" || c.NodeName == "" {
				return fmt.Errorf("--kubeconfig and --node-name are required")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c.Log = streams.ErrOut
			return ipmode.Run(ctx, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Kubeconfig, "kubeconfig", "", "how to reach the apiserver (required)")
	f.StringVar(&c.NodeName, "node-name", "", "the Node this runs on; its InternalIP is where NodePorts listen (required)")
	f.BoolVar(&c.IgnoreIPMode, "ignore-ipmode", false, "short-circuit Proxy ingress IPs too, like a dataplane without KEP-1860 (to see the ipmode suite fail)")
	f.DurationVar(&c.MinSyncPeriod, "min-sync-period", 100*time.Millisecond, "batch changes into one nftables rewrite at most this often")
	return cmd
}
