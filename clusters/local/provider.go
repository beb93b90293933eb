package local

import (
	"context"
	"os"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

// Registration is the local provider as clusters/providers registers it.
func Registration() clusters.Provider {
	return clusters.Provider{
		Name:        "local",
		Description: "processes of this machine, each apiserver its own hostname and loopback address",
		Capabilities: []clusters.Capability{clusters.NodeProxiers, clusters.Fronts, clusters.VendorFronts,
			clusters.ServersWithoutPeerProxy, clusters.KubeadmPeerProxy, clusters.PeerAdvertise, clusters.EmulatedVersions, clusters.ControllerManagers, clusters.Named, clusters.NamedFronts},
		Preflight: CheckPrivilege,
		New: func(ctx context.Context, spec clusters.Spec) (clusters.Cluster, error) {
			c, err := New(ctx, ConfigOf(spec))
			if err != nil {
				return nil, err
			}
			return Adapter{c}, nil
		},
	}
}

// ConfigOf is the Config of a clusters.Spec; Hosts stays nil (processes of this machine).
func ConfigOf(s clusters.Spec) Config {
	return Config{Name: s.Name, Servers: s.Servers, Dir: s.Dir, Port: s.Port, Binaries: s.Binaries,
		Progress: s.Progress, PeerPaths: s.PeerPaths, ConvergeTimeout: s.ConvergeTimeout,
		ControllerManager: s.ControllerManager}
}

// Adapter is a Cluster as package clusters sees it; other providers whose clusters are
// local Clusters on other hosts (containers) build on it.
type Adapter struct{ *Cluster }

// Members are the servers, each restarted at another version in place.
func (a Adapter) Members() []clusters.Member {
	out := make([]clusters.Member, len(a.Servers))
	for i, s := range a.Servers {
		out[i] = member{s}
	}
	return out
}

// Record is what clusters/registry keeps of the cluster once it has converged.
func (a Adapter) Record() registry.Record {
	c := a.Cluster
	r := registry.Record{Name: c.Name, Kubeconfig: c.Kubeconfig, Created: time.Now(),
		Ready: c.Timings.Ready, Converged: c.Timings.Converged, Supervisor: os.Getpid()}
	for _, s := range c.Servers {
		r.Servers = append(r.Servers, registry.Server{
			Name: s.Name, Version: s.Version, URL: s.URL(), Hostname: s.Hostname, Pid: s.Pid(),
			PeerProxy: s.PeerProxy(), Log: s.Log(), AuditLog: s.AuditLog(),
			Admin: c.ContextName(s, Admin), User: c.ContextName(s, Unprivileged),
		})
	}
	return r
}

type member struct{ s *Server }

func (m member) Name() string    { return m.s.Name }
func (m member) Version() string { return m.s.Version }
func (m member) Restart(ctx context.Context, version string) error {
	return m.s.Restart(ctx, version)
}

// What the registration declares, the adapter must implement.
var (
	_ clusters.NodeProxier = Adapter{}
	_ clusters.FrontHost   = Adapter{}
	_ registry.Recorded    = Adapter{}
)
