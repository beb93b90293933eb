package upgrade

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
)

// Cluster is what the upgrade needs of a control plane, whichever provider made it.
type Cluster interface {
	Target(ctx context.Context) (*framework.Target, error)
	WaitConverged(ctx context.Context) error
	// Members are the apiservers, in the order they are upgraded.
	Members() []Member
	Delete() error
}

// Member is one apiserver that can be upgraded in place.
type Member interface {
	Name() string
	Version() string
	// Restart stops the server gracefully and starts it again at version.
	Restart(ctx context.Context, version string) error
}

// makeCluster makes o.Servers apiservers at o.From: with o.Make, or as a local cluster.
func makeCluster(ctx context.Context, o Options) (Cluster, error) {
	if o.Make != nil {
		return o.Make(ctx, o.From, o.Servers)
	}
	specs := make([]string, o.Servers)
	for i := range specs {
		specs[i] = o.From
	}
	cfg := o.Cluster
	cfg.Servers = clusters.SpecsFor(specs)
	cfg.Progress = o.Progress
	c, err := local.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return localCluster{c}, nil
}

type localCluster struct{ *local.Cluster }

func (c localCluster) Members() []Member {
	out := make([]Member, len(c.Servers))
	for i, s := range c.Servers {
		out[i] = localMember{s}
	}
	return out
}

type localMember struct{ s *local.Server }

func (m localMember) Name() string    { return m.s.Name }
func (m localMember) Version() string { return m.s.Version }
func (m localMember) Restart(ctx context.Context, version string) error {
	return m.s.Restart(ctx, version)
}
