package clusters

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
)

// Provider is one way of making clusters, as it registers itself.
type Provider struct {
	// Name is what --provider says: local, kind, containers.
	Name string
	// Description says in a few words what a cluster is made of, for help texts.
	Description string
	// Capabilities are what its clusters can do beyond Cluster.
	Capabilities []Capability
	// New makes a cluster and waits until it has converged. Anything in spec the provider
	// cannot honour is an ErrNotSupported before anything is made; on any other error,
	// everything made so far is removed again.
	New func(ctx context.Context, spec Spec) (Cluster, error)
	// Preflight, when set, checks what this machine must offer the provider (privileges,
	// an engine), quickly and before anything is made. clusters.New runs it before the
	// provider's New, so every caller gets its clear refusal rather than a failure deep in
	// a start; registry.Create runs it earlier still, before it claims a name.
	Preflight func() error
	// Lasting, for a provider whose named clusters live on without a process of this
	// machine holding them (kind's nodes in Docker), finds and removes them; nil when a
	// named cluster needs a supervisor process (clusters/registry starts one).
	Lasting Lasting
}

// Lasting finds and removes a provider's named clusters, which no process holds.
type Lasting interface {
	// Names are the named clusters that exist now, by skewcheck's name.
	Names() ([]string, error)
	// Remove deletes the named cluster and the files under dir.
	Remove(ctx context.Context, name, dir string) error
}

var (
	mu        sync.Mutex
	providers = map[string]Provider{}
)

// Register makes a provider known by its name; a second registration of a name panics (a
// programming error, found by the first test).
func Register(p Provider) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := providers[p.Name]; dup {
		panic(fmt.Sprintf("clusters: provider %q registered twice", p.Name))
	}
	providers[p.Name] = p
}

// Lookup is the registered provider of that name.
func Lookup(name string) (Provider, error) {
	mu.Lock()
	defer mu.Unlock()
	p, ok := providers[name]
	if !ok {
		return Provider{}, ErrUnknownProvider{Provider: name, Known: names()}
	}
	return p, nil
}

// Providers are the registered providers, by name.
func Providers() []Provider {
	mu.Lock()
	defer mu.Unlock()
	var out []Provider
	for _, n := range names() {
		out = append(out, providers[n])
	}
	return out
}

func names() []string {
	var out []string
	for n := range providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Supports says whether the provider declares the capability.
func (p Provider) Supports(c Capability) bool { return slices.Contains(p.Capabilities, c) }

// Require checks, before anything is made, that provider exists and declares every
// capability asked for: ErrUnknownProvider, or ErrNotSupported for the first it lacks.
func Require(provider string, caps ...Capability) error {
	p, err := Lookup(provider)
	if err != nil {
		return err
	}
	for _, c := range caps {
		if !p.Supports(c) {
			return ErrNotSupported{Provider: provider, Capability: c}
		}
	}
	return nil
}

// New makes a cluster of spec on the named provider, after checking what spec asks of it
// and what the provider asks of this machine (Preflight).
func New(ctx context.Context, provider string, spec Spec) (Cluster, error) {
	p, err := Lookup(provider)
	if err != nil {
		return nil, err
	}
	if err := Require(provider, spec.Needs()...); err != nil {
		return nil, err
	}
	if p.Preflight != nil {
		if err := p.Preflight(); err != nil {
			return nil, err
		}
	}
	return p.New(ctx, spec)
}

// Needs are the capabilities spec asks of a provider.
func (s Spec) Needs() []Capability {
	var out []Capability
	for _, sv := range s.Servers {
		if sv.DisablePeerProxy && !slices.Contains(out, ServersWithoutPeerProxy) {
			out = append(out, ServersWithoutPeerProxy)
		}
		if sv.KubeadmPeerProxy && !slices.Contains(out, KubeadmPeerProxy) {
			out = append(out, KubeadmPeerProxy)
		}
		if sv.PeerAdvertise != "" && !slices.Contains(out, PeerAdvertise) {
			out = append(out, PeerAdvertise)
		}
		if sv.EmulatedVersion != "" && !slices.Contains(out, EmulatedVersions) {
			out = append(out, EmulatedVersions)
		}
	}
	if len(s.NodeImages) > 0 {
		out = append(out, NodeImages)
	}
	if s.PodNetwork {
		out = append(out, PodNetwork)
	}
	if s.ControllerManager != nil {
		out = append(out, ControllerManagers)
	}
	return out
}
