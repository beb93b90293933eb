package faults

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// disconnect is a partition of a whole server by its hosts (containers: docker network
// disconnect): its address is gone for peers, etcd and clients alike, its process runs on,
// and heal puts it back at the same address.
type disconnect struct {
	s *local.Server
	d local.Disconnector
}

// Disconnect cuts server s off the cluster's network.
func Disconnect(s *local.Server, d local.Disconnector) Fault { return &disconnect{s: s, d: d} }

func (f *disconnect) Name() string { return "partition" }
func (f *disconnect) Description() string {
	return f.s.Name + " cut off the cluster's network (docker network disconnect), reconnected at " + f.s.IP + " on heal"
}
func (f *disconnect) Inject(ctx context.Context) error { return f.d.Disconnect(ctx, f.s) }
func (f *disconnect) Heal(ctx context.Context) error   { return f.d.Reconnect(ctx, f.s) }
