package front

import "github.com/skewcheck/skewcheck/clusters/local"

// Host is a cluster the harness can put a front before (the reference peer proxy here, a
// sidecar in clusters/sidecar, a gateway in clusters/gateway): its apiservers are a local
// Cluster's, on hosts whose addresses this machine reaches and lends (the local and
// containers providers). It is a capability of package clusters' kind, found by a type
// assertion on a clusters.Cluster, but it lives here: it hands out a *local.Cluster, which
// package clusters cannot name (local imports it).
type Host interface {
	FrontHost() *local.Cluster
}

// The local provider's clusters are hosts for fronts (Fronts, VendorFronts).
var _ Host = local.Adapter{}
