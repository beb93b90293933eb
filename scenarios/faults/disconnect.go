package faults

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters"
)

// disconnect is a partition of a whole server by the cluster that runs it (containers:
// docker network disconnect): its address is gone for peers, etcd and clients alike, its
// process runs on, and heal puts it back at the same address.
type disconnect struct {
	d      clusters.Disconnector
	server string
}

// Disconnect cuts the named server off the cluster's network.
func Disconnect(d clusters.Disconnector, server string) Fault {
	return &disconnect{d: d, server: server}
}

func (f *disconnect) Name() string                     { return "partition" }
func (f *disconnect) Description() string              { return f.d.DisconnectDescription(f.server) }
func (f *disconnect) Inject(ctx context.Context) error { return f.d.Disconnect(ctx, f.server) }
func (f *disconnect) Heal(ctx context.Context) error   { return f.d.Reconnect(ctx, f.server) }

// WithDisconnector is s on a cluster that cuts its servers off its network itself, the
// faulted server known to it as member: the faults with such a variant use it
// (Kind.OnDisconnector). The nftables faults still act in each server's own namespace.
func (s Subject) WithDisconnector(d clusters.Disconnector, member string) Subject {
	s.disconnector, s.disconnected = d, member
	return s
}
