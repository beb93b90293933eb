//go:build !incluster

package app

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// etcdCommand runs the etcd skewcheck embeds in its local clusters as a process of its
// own: the etcd container of --provider containers is a FROM scratch image of a static
// skewcheck running it, since no etcd image can be pulled.
func newEtcdCommand(streams IOStreams) *cobra.Command {
	var dataDir, ip string
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Run skewcheck's embedded etcd (one member, no TLS) until SIGTERM",
		Long: `Serves etcd clients on http://IP:2379 and peers on IP:2380, with its data in --data-dir,
until SIGINT or SIGTERM. fsync is off: this is a test cluster's store.`,
		Example: "  skewcheck etcd --data-dir /var/lib/etcd --ip 10.177.1.2",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dataDir == "" || ip == "" {
				return fmt.Errorf("--data-dir and --ip are required")
			}
			e, url, err := local.StartEtcd(dataDir, ip, time.Minute)
			if err != nil {
				return err
			}
			defer e.Close()
			fmt.Fprintf(streams.ErrOut, "etcd serving clients at %s, data in %s\n", url, dataDir)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			select {
			case <-ctx.Done():
			case err := <-e.Err():
				return fmt.Errorf("etcd stopped: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "where etcd keeps its data (its etcd/ subdirectory) (required)")
	cmd.Flags().StringVar(&ip, "ip", "", "the address to serve on (required)")
	return cmd
}
