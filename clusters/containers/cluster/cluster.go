package cluster

import (
	"context"
	"errors"
	"io"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// New makes a cluster as local.New does, with etcd and every apiserver in a container of
// its own. skewcheckBinary is a static (CGO_ENABLED=0) skewcheck, the etcd image's
// entrypoint. On any error everything it made (containers, network) is removed before it
// returns.
func New(ctx context.Context, cfg local.Config, skewcheckBinary string) (*local.Cluster, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("a cluster needs at least one server: give versions such as --versions v1.35.4,v1.36.3")
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
