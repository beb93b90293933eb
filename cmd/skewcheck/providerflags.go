package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	containercluster "github.com/skewcheck/skewcheck/clusters/containers/cluster"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// providerContainers runs etcd and the apiservers as containers (clusters/containers/cluster).
const providerContainers = "containers"

// providerFlags choose where the cluster's etcd and apiservers run.
type providerFlags struct {
	name, binary string
	nodeImages   []string // kind node images to use instead of building skewcheck's
}

func (p *providerFlags) add(cmd *cobra.Command, kind bool) {
	help := "where etcd and the apiservers run: local (processes of this machine, each apiserver its own hostname and loopback address)"
	if kind {
		help += ", kind (one kind control-plane node per version, in Docker)"
		addNodeImageFlag(cmd, &p.nodeImages)
	}
	help += " or containers (each in its own container on a Docker network, images built here FROM scratch)"
	cmd.Flags().StringVar(&p.name, "provider", providerLocal, help)
	cmd.Flags().StringVar(&p.binary, "static-binary", "", "with --provider containers: a static (CGO_ENABLED=0) skewcheck for the etcd image (default: this executable)")
}

// validate checks, before anything starts, that the provider is one of those the command
// runs on.
func (p *providerFlags) validate(allowed ...string) error {
	if !slices.Contains(allowed, p.name) {
		return fmt.Errorf("unknown --provider %q: use %s", p.name, strings.Join(allowed, ", "))
	}
	if len(p.nodeImages) > 0 && p.name != providerKind {
		return fmt.Errorf("--node-image makes kind nodes: it goes with --provider kind")
	}
	if p.name == providerContainers && p.binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this executable: %w; name a static skewcheck with --static-binary", err)
		}
		p.binary = exe
	}
	return nil
}

// newCluster makes the cluster on the chosen provider (local or containers).
func (p *providerFlags) newCluster(ctx context.Context, cfg local.Config) (*local.Cluster, error) {
	if p.name == providerContainers {
		return containercluster.New(ctx, cfg, p.binary)
	}
	return local.New(ctx, cfg)
}
