package upgrade

import (
	"context"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/providers"
)

// makeCluster makes o.Servers apiservers at o.From on o.Provider (default: the default
// provider); its Members are what the upgrade restarts, whichever provider made it.
func makeCluster(ctx context.Context, o Options) (clusters.Cluster, error) {
	versions := make([]string, o.Servers)
	for i := range versions {
		versions[i] = o.From
	}
	spec := o.Cluster
	spec.Servers = clusters.SpecsFor(versions)
	spec.Progress = o.Progress
	provider := o.Provider
	if provider == "" {
		provider = providers.Default
	}
	return clusters.New(ctx, provider, spec)
}
