package cluster

import (
	"context"
	"io"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// New makes a cluster as local.New does, with etcd and every apiserver in a container of
// its own. skewcheckBinary is a static (CGO_ENABLED=0) skewcheck, the etcd image's
// entrypoint. On any error everything it made (containers, network) is removed before it
// returns.
func New(ctx context.Context, cfg local.Config, skewcheckBinary string) (*local.Cluster, error) {
	if len(cfg.Servers) == 0 {
		return nil, clusters.ErrNoServers
	}
	if cfg.Name == "" {
		cfg.Name = "skewcheck"
	}
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	h, err := newHosts(ctx, cfg.Name, skewcheckBinary, progress)
	if err != nil {
		return nil, err
	}
	cfg.Hosts = h
	return local.New(ctx, cfg)
}
