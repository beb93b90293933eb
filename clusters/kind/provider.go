package kind

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/clusters/registry"
)

// providerName is the kind provider's name in the registry.
const providerName = "kind"

// Registration is the kind provider as clusters/providers registers it. A spec with a Dir
// is a named cluster, kept under that name until `cluster delete`; one without is a run's
// own, named after the run's pid (RunPrefix) and swept by the next run once that process
// is gone.
func Registration() clusters.Provider {
	return clusters.Provider{
		Name:        providerName,
		Description: "one kind control-plane node per version, in Docker; node images are built offline, see skewcheck images node",
		Capabilities: []clusters.Capability{clusters.NodeProxiers,
			clusters.NodeImages, clusters.Named, clusters.Fronts, clusters.VendorFronts, clusters.ServersWithoutPeerProxy, clusters.KubeadmPeerProxy, clusters.PodNetwork},
		New:     newCluster,
		Lasting: lasting{},
	}
}

func newCluster(ctx context.Context, spec clusters.Spec) (clusters.Cluster, error) {
	out := spec.Progress
	if out == nil {
		out = io.Discard
	}
	name, dir, run := spec.Name, spec.Dir, spec.Dir == ""
	if run {
		SweepRuns(out)
		name = fmt.Sprintf("%s%d", RunPrefix, os.Getpid())
		var err error
		if dir, err = os.MkdirTemp("", "skewcheck-kind-run-"); err != nil {
			return nil, err
		}
	}
	cfg := Config{Name: name, Binaries: spec.Binaries, NodeImages: spec.NodeImages, PodNetwork: spec.PodNetwork, Progress: out, Dir: dir, ConvergeTimeout: spec.ConvergeTimeout}
	cfg.setServers(spec.Servers)
	c, err := Create(ctx, cfg)
	if err != nil {
		if run {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	fmt.Fprintf(out, "kind cluster %s: node images in %v, kind create in %v, every apiserver /readyz at %v, converged at %v after the start\n", KindName(name),
		c.Timings.Images.Round(time.Second), c.Timings.Create.Round(time.Second), c.Timings.Ready.Round(time.Second), c.Timings.Converged.Round(time.Second))
	return &adapter{Cluster: c, dir: dir, spec: spec, out: out}, nil
}

// setServers makes the nodes of servers, in order: node i+1 of servers[i].
func (c *Config) setServers(servers []clusters.ServerSpec) {
	c.Versions, c.ServerFlags, c.NoPeerProxy, c.KubeadmPeerProxy = nil, map[int][]string{}, map[int]bool{}, map[int]bool{}
	for i, s := range servers {
		c.Versions = append(c.Versions, s.Version)
		c.ServerFlags[i+1] = s.ExtraFlags
		c.NoPeerProxy[i+1] = s.DisablePeerProxy
		c.KubeadmPeerProxy[i+1] = s.KubeadmPeerProxy
	}
}

// adapter is a kind Cluster as package clusters sees it.
type adapter struct {
	*Cluster
	dir  string
	spec clusters.Spec
	out  io.Writer
	// What FrontSite lends fronts, made at its first call: certificate files, and the
	// loopback block they listen on, held until Delete.
	fronts    *pki.Bundle
	addresses *local.AddressBlock
}

// Members are the nodes' apiservers, upgraded as kubeadm does: the static pod's image.
func (a *adapter) Members() []clusters.Member {
	out := make([]clusters.Member, len(a.Servers))
	for i := range a.Servers {
		out[i] = member{a: a, i: i}
	}
	return out
}

// Delete removes the nodes, the network and the cluster's files, and gives back the
// fronts' addresses.
func (a *adapter) Delete() error {
	if a.addresses != nil {
		defer a.addresses.Release()
	}
	return Delete(context.Background(), a.Name, a.dir)
}

// Record is what clusters/registry keeps of a named cluster: no process holds it.
func (a *adapter) Record() registry.Record {
	c := a.Cluster
	r := registry.Record{Name: c.Name, Kubeconfig: c.Kubeconfig, Created: time.Now(),
		Ready: c.Timings.Ready, Converged: c.Timings.Converged}
	for _, s := range c.Servers {
		r.Servers = append(r.Servers, registry.Server{Name: s.Name, Version: s.Version, URL: s.URL, Hostname: s.Node, PeerProxy: s.PeerProxy, AuditLog: s.AuditLog,
			Admin: ContextName(c.Name, s.Name, Admin), User: ContextName(c.Name, s.Name, Unprivileged)})
	}
	if c.LoadBalancer != "" {
		r.LoadBalancer = &registry.Endpoint{URL: c.LoadBalancer, Host: loadBalancerContainer(c.Name),
			Admin: ContextName(c.Name, "lb", Admin), User: ContextName(c.Name, "lb", Unprivileged)}
	}
	return r
}

type member struct {
	a *adapter
	i int
}

func (m member) Name() string    { return m.a.Servers[m.i].Name }
func (m member) Version() string { return m.a.Servers[m.i].Version }
func (m member) Restart(ctx context.Context, version string) error {
	return m.a.Upgrade(ctx, m.Name(), version, m.a.spec.Binaries, m.a.out)
}

// Prepare loads version's image into the node first: the step that follows is the
// kubelet's swap of the static pod alone.
func (m member) Prepare(ctx context.Context, version string) error {
	_, err := m.a.PrepareUpgrade(ctx, m.Name(), version, m.a.spec.Binaries, m.a.out)
	return err
}

// RunPrefix names the kind cluster of one run (conformance, chaos, races, upgrade), with
// its pid.
const RunPrefix = "conformance-"

// SweepRuns deletes the kind clusters of runs whose process is gone (SIGKILLed before it
// could delete its own). Without Docker there are none to find.
func SweepRuns(out io.Writer) {
	names, err := Names()
	if err != nil {
		return
	}
	for _, n := range names {
		if process.OwnerGone(n, RunPrefix, "-") {
			fmt.Fprintf(out, "deleting kind cluster %s, left by a run that is gone\n", KindName(n))
			dir, err := os.MkdirTemp("", "skewcheck-kind-sweep-")
			if err != nil {
				return
			}
			if err := Delete(context.Background(), n, dir); err != nil {
				fmt.Fprintln(out, "warning:", err)
			}
		}
	}
}

// lasting finds and removes named kind clusters: their nodes live on in Docker.
type lasting struct{}

func (lasting) Names() ([]string, error) {
	all, err := Names()
	var out []string
	for _, n := range all {
		if !strings.HasPrefix(n, RunPrefix) {
			out = append(out, n)
		}
	}
	return out, err
}

func (lasting) Remove(ctx context.Context, name, dir string) error { return Delete(ctx, name, dir) }

// What the registration declares, the adapter must implement.
var (
	_ clusters.NodeProxier = (*adapter)(nil)
	_ dataplane.Machines   = (*adapter)(nil)
	_ clusters.FrontHost   = (*adapter)(nil)
	_ registry.Recorded    = (*adapter)(nil)
)
