package upgrade

import (
	"context"
	"errors"

	"github.com/skewcheck/skewcheck/clusters"
)

// makeCluster makes o.Servers apiservers at o.From on o.Provider; its Members are what the
// upgrade restarts, whichever provider made it. The provider is named by the caller, which
// registered it (cmd, through clusters/providers): this package reaches no provider itself,
// so a library user of the scenarios gets neither Docker nor a provider it did not ask for.
func makeCluster(ctx context.Context, o Options) (clusters.Cluster, error) {
	versions := make([]string, o.Servers)
	for i := range versions {
		versions[i] = o.From
	}
	spec := o.Cluster
	spec.Servers = clusters.SpecsFor(versions)
	spec.Progress = o.Progress
	if o.Provider == "" {
		return nil, errors.New("upgrade: no provider named to make the cluster with (Options.Provider): register one (clusters/providers registers skewcheck's, \"local\" among them) and name it")
	}
	return clusters.New(ctx, o.Provider, spec)
}
