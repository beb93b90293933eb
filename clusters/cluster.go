package clusters

import (
	"context"

	"github.com/skewcheck/skewcheck/framework"
)

// Cluster is what every provider's clusters can do.
type Cluster interface {
	// Target describes the running cluster for the suites: an endpoint per apiserver, each
	// with its Node operations.
	Target(ctx context.Context) (*framework.Target, error)
	// WaitConverged waits until every running apiserver reaches, through its proxy, every
	// GVR a running peer serves: readiness is convergence.
	WaitConverged(ctx context.Context) error
	// Delete stops everything the cluster runs and removes what it made.
	Delete() error
}

// Upgradable is a cluster whose apiservers skewcheck may restart at another version: one
// it made. A cluster that runs without it (an existing one) is not.
type Upgradable interface {
	Cluster
	// Members are the apiservers, in order, as a rolling upgrade restarts them.
	Members() []Member
}

// Member is one apiserver that can be restarted in place at another version.
type Member interface {
	Name() string
	Version() string
	// Restart stops the server gracefully and starts it again at version.
	Restart(ctx context.Context, version string) error
}

// Preparer is a Member whose Restart at another version begins with work that leaves the
// server running (a kind node loads the new image first): a rolling upgrade prepares before
// the step starts, so the step's window holds only what a client can notice.
type Preparer interface {
	Prepare(ctx context.Context, version string) error
}

// Listing is a cluster that says which of its apiservers it lists as serving now (an
// existing cluster's default/kubernetes EndpointSlices): an observer follows servers that
// leave and come back while someone else upgrades the cluster.
type Listing interface {
	Cluster
	// Listed are the Target's endpoint names listed ready now, and the addresses listed that
	// no endpoint of the Target has (an apiserver that joined since).
	Listed(ctx context.Context) (names, joined []string, err error)
}
