package cluster

import (
	"context"
	"fmt"
	"os"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// Registration is the containers provider as clusters/providers registers it.
func Registration() clusters.Provider {
	return clusters.Provider{
		Name:         "containers",
		Description:  "each in its own container on a Docker network, images built here FROM scratch",
		Capabilities: []clusters.Capability{clusters.Fronts, clusters.ServersWithoutPeerProxy, clusters.KubeadmPeerProxy, clusters.PeerAdvertise},
		New: func(ctx context.Context, spec clusters.Spec) (clusters.Cluster, error) {
			bin := spec.StaticBinary
			if bin == "" {
				exe, err := os.Executable()
				if err != nil {
					return nil, fmt.Errorf("finding this executable for the etcd image: %w; name a static skewcheck instead", err)
				}
				bin = exe
			}
			c, err := New(ctx, local.ConfigOf(spec), bin)
			if err != nil {
				return nil, err
			}
			return adapter{local.Adapter{Cluster: c}}, nil
		},
	}
}

// adapter is a containers cluster as package clusters sees it: a local one whose hosts
// can also cut a server off the network (clusters.Disconnector).
type adapter struct{ local.Adapter }

func (a adapter) Disconnect(ctx context.Context, server string) error {
	s, d, err := a.disconnectable(server)
	if err != nil {
		return err
	}
	return d.Disconnect(ctx, s)
}

func (a adapter) Reconnect(ctx context.Context, server string) error {
	s, d, err := a.disconnectable(server)
	if err != nil {
		return err
	}
	return d.Reconnect(ctx, s)
}

func (a adapter) DisconnectDescription(server string) string {
	ip := "its address"
	if s := a.Server(server); s != nil {
		ip = s.IP
	}
	return server + " cut off the cluster's network (docker network disconnect), reconnected at " + ip + " on heal"
}

func (a adapter) disconnectable(server string) (*local.Server, local.Disconnector, error) {
	s, d := a.Server(server), a.Cluster.Disconnector()
	if s == nil || d == nil {
		return nil, nil, fmt.Errorf("cluster %s cannot disconnect server %q", a.Name, server)
	}
	return s, d, nil
}

// What the registration declares, the adapter must implement.
var (
	_ clusters.Disconnector = adapter{}
	_ clusters.FrontHost    = adapter{}
)
