package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	containercluster "github.com/skewcheck/skewcheck/clusters/containers/cluster"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// providerFlags choose where the cluster's etcd and apiservers run.
type providerFlags struct {
	name, binary string
}

func (p *providerFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.name, "provider", "local", "where etcd and the apiservers run: local (processes of this machine, each apiserver its own hostname and loopback address) or containers (each in its own container on a Docker network, images built here FROM scratch)")
	cmd.Flags().StringVar(&p.binary, "static-binary", "", "with --provider containers: a static (CGO_ENABLED=0) skewcheck for the etcd image (default: this executable)")
}

// validate checks the provider before anything starts.
func (p *providerFlags) validate() error {
	switch p.name {
	case "local":
		return nil
	case "containers":
		if p.binary == "" {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this executable: %w; name a static skewcheck with --static-binary", err)
			}
			p.binary = exe
		}
		return nil
	}
	return fmt.Errorf("unknown --provider %q: local or containers", p.name)
}

// newCluster makes the cluster on the chosen provider.
func (p *providerFlags) newCluster(ctx context.Context, cfg local.Config) (*local.Cluster, error) {
	if p.name == "containers" {
		return containercluster.New(ctx, cfg, p.binary)
	}
	return local.New(ctx, cfg)
}
