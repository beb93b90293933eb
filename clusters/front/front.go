package front

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// Front is what the harness can put in front of a cluster's apiservers: the reference peer
// proxy (PeerProxy), a vendor's sidecar (clusters/sidecar) or gateway (clusters/gateway).
// A front needs nothing of a provider but a FrontSite, so every front runs on every
// provider whose clusters are FrontHosts; a new front is a type with these methods.
type Front interface {
	// Capability is what a provider declares to host this front (clusters.Fronts for the
	// reference, clusters.VendorFronts for a vendor's).
	Capability() clusters.Capability
	// Put starts the front before site's apiservers and returns the target of what clients
	// reach; stop ends the front (not the cluster).
	Put(ctx context.Context, site *clusters.FrontSite) (t *framework.Target, stop func(), err error)
}

// Before puts f in front of c's apiservers. A cluster that lends no FrontSite (its
// provider runs its apiservers where this machine cannot stand before them) is
// clusters.ErrNotSupported for f's capability, naming provider.
func Before(ctx context.Context, provider string, c clusters.Cluster, f Front) (*framework.Target, func(), error) {
	h, ok := c.(clusters.FrontHost)
	if !ok {
		return nil, nil, clusters.ErrNotSupported{Provider: provider, Capability: f.Capability()}
	}
	return On(ctx, h, f)
}

// On puts f in front of h's apiservers.
func On(ctx context.Context, h clusters.FrontHost, f Front) (*framework.Target, func(), error) {
	site, err := h.FrontSite(ctx)
	if err != nil {
		return nil, nil, err
	}
	t, stop, err := f.Put(ctx, site)
	if err == nil && site.Direct != nil {
		// A front stands in front of the same apiservers: they reach what they reached.
		t.ExtensionHost, t.NoExtensionHost = site.Direct.ExtensionHost, site.Direct.NoExtensionHost
	}
	return t, stop, err
}
