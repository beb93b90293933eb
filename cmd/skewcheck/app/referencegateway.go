//go:build !incluster

package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/reference/gateway"
)

// The reference gateway registers as "reference" beside the command that runs it: a run
// with --gateway reference starts this binary's `reference gateway` as its command, and
// `reference gateway wait` as its apply command.
func init() {
	clustersgateway.RegisterReference(clustersgateway.Reference{Name: "reference", Description: "skewcheck's reference API gateway (reference/gateway)",
		Variants: gateway.DefectNames,
		Make: func(exe string, defects []string) (clustersgateway.Config, error) {
			if _, err := gateway.ParseDefects(defects); err != nil {
				return clustersgateway.Config{}, err
			}
			cfg := clustersgateway.Config{Name: "reference",
				Shell: "exec " + exe + ` reference gateway --listen "$SKEWCHECK_LISTEN" --config-dir "$SKEWCHECK_GATEWAY_CONFIG"` +
					` --tls-cert "$SKEWCHECK_SERVING_CERT" --tls-key "$SKEWCHECK_SERVING_KEY" --client-ca "$SKEWCHECK_CLIENT_CA"` +
					` --default-server-name "$SKEWCHECK_SERVER_NAME"`,
				ApplyShell: "exec " + exe + ` reference gateway wait --config-dir "$SKEWCHECK_GATEWAY_CONFIG"`}
			if len(defects) > 0 {
				cfg.Name = "reference-with-defects"
				cfg.Shell += " --defect " + strings.Join(defects, ",")
			}
			return cfg, nil
		}})
}

// referenceGatewayCommand runs the reference API gateway, and waits for it to apply a
// configuration (the apply command skewcheck gives it).
func newReferenceGatewayCommand(streams IOStreams) *cobra.Command {
	var c gateway.Config
	var defects []string
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the reference API gateway in front of sets of kube-apiservers (UpstreamCluster documents)",
		Long: `Serves TLS on --listen in front of the apiservers that the UpstreamCluster documents
(proxy.kubegateway.io/v1alpha1, KubeGateway's API) in --config-dir describe. The server name
a client asks for (SNI) selects the cluster; --default-server-name is for clients that send
none. With --host-routing the Host header selects it instead, as in KubeGateway, and the
server name only picks the certificate and client CA. A request whose Host and server name
name two different clusters is refused (421 Misdirected Request). Clients are authenticated (certificates signed by the cluster's client CA, bearer
tokens through a TokenReview) and the upstreams are reached as the gateway's own identity
(spec.clientConfig) with Impersonate-* headers, so the upstream authorizes the real user.
The first dispatch policy whose rules match picks the servers; a GVR only some of them
serve goes only to those (their own discovery, read every --discovery-every).

The directory is read again when it changes: a valid configuration is applied as a whole,
an invalid one is refused with every problem listed and the previous one stays. The
outcome of each load goes to --status-file, which 'skewcheck reference gateway wait'
reads. An invalid configuration at start is an error (exit 1).`,
		Example: "  skewcheck reference gateway --listen 10.0.0.5:443 --config-dir /etc/gateway/clusters \\\n" +
			"    --tls-cert gateway.crt --tls-key gateway.key --client-ca ca.crt --metrics-listen 127.0.0.1:9091\n" +
			"  skewcheck reference gateway wait --config-dir /etc/gateway/clusters   # after editing the documents",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := gateway.ParseDefects(defects)
			if err != nil {
				return err
			}
			if c.StreamWait <= 0 || c.IdleTimeout <= 0 {
				return fmt.Errorf("--stream-wait %s, --idle-timeout %s: give positive durations (a request must be able to wait for a stream; an idle connection must end)", c.StreamWait, c.IdleTimeout)
			}
			c.Defects, c.Log = d, streams.ErrOut
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			g, err := gateway.Start(c)
			if err != nil {
				return err
			}
			note := ""
			if d.Any() {
				note = " WITH DELIBERATE DEFECTS " + strings.Join(defects, ",")
			}
			fmt.Fprintf(streams.ErrOut, "reference gateway serving at %s, configuration from %s%s\n", g.URL(), c.ConfigDir, note)
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			return g.Shutdown(sctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Listen, "listen", "", "address clients connect to, ip:port (required)")
	f.StringVar(&c.ConfigDir, "config-dir", "", "directory of UpstreamCluster documents, *.yaml (required)")
	f.StringVar(&c.StatusFile, "status-file", "", "where the outcome of each configuration load is written (default <config-dir>/.gateway-status.json)")
	f.StringVar(&c.ServingCert, "tls-cert", "", "serving certificate for clusters that bring none, and for unknown server names")
	f.StringVar(&c.ServingKey, "tls-key", "", "its key")
	f.StringVar(&c.ClientCA, "client-ca", "", "CA of client certificates, for clusters that bring none (as kube-apiserver's --client-ca-file)")
	f.StringVar(&c.DefaultServerName, "default-server-name", "", "the cluster for clients that send no server name (they connect to an IP address)")
	f.BoolVar(&c.RouteByHost, "host-routing", false, "select the UpstreamCluster by the request's Host header (KubeGateway's design), not by the TLS server name")
	f.StringVar(&c.MetricsListen, "metrics-listen", "", "serve Prometheus metrics at /metrics here")
	f.DurationVar(&c.UpstreamTimeout, "upstream-timeout", 2*time.Second, "bound on dialing, TLS handshakes and HTTP/2 pings to an upstream: a frozen one is given up within about twice this")
	f.DurationVar(&c.HealthEvery, "health-every", time.Second, "how often each upstream's /readyz is checked")
	f.DurationVar(&c.DiscoveryEvery, "discovery-every", 30*time.Second, "how often each upstream's own discovery is read")
	f.DurationVar(&c.StreamWait, "stream-wait", 5*time.Second, "how long a request waits for its user's share of HTTP/2 streams to the chosen upstream before another upstream with a free stream, else 503 with Retry-After")
	f.DurationVar(&c.IdleTimeout, "idle-timeout", 90*time.Second, "close a client connection with no request in flight for this long (kube-apiserver's is 90 s)")
	f.StringSliceVar(&defects, "defect", nil, "switch on a deliberate mistake, to see the gateway profile fail: "+strings.Join(gateway.DefectNames(), ", "))
	cmd.AddCommand(newReferenceGatewayWaitCommand(streams))
	return cmd
}

func newReferenceGatewayWaitCommand(streams IOStreams) *cobra.Command {
	var dir, statusFile string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait",
		Short: "Wait until the reference gateway has loaded what --config-dir holds now",
		Long: `Exits 0 once the gateway reading --config-dir has applied its current contents, and 1
with the gateway's reasons when it refused them (an invalid UpstreamCluster) or when
--timeout passes first. skewcheck runs it as the reference gateway's apply command.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return fmt.Errorf("--config-dir is required: the directory the gateway reads")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			return gateway.WaitApplied(ctx, dir, statusFile)
		},
	}
	cmd.Flags().StringVar(&dir, "config-dir", "", "the gateway's --config-dir (required)")
	cmd.Flags().StringVar(&statusFile, "status-file", "", "the gateway's --status-file, if it was given one")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "how long to wait")
	return cmd
}
