package kind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/cluster"
)

func provider() *cluster.Provider {
	return cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger{w: os.Stderr}))
}

// Delete removes the kind cluster skewcheck calls name: its containers with their volumes,
// its network, and the kubeconfig and patches under dir.
func Delete(ctx context.Context, name, dir string) error {
	eng, err := connect(ctx)
	if err != nil {
		return err
	}
	defer eng.close()
	if err := remove(provider(), eng, name, filepath.Join(dir, "kind-admin.kubeconfig")); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// Names lists the kind clusters skewcheck made (by skewcheck's names) that have containers.
func Names() ([]string, error) {
	all, err := provider().List()
	if err != nil {
		return nil, fmt.Errorf("listing kind clusters: %w", err)
	}
	var out []string
	for _, n := range all {
		if strings.HasPrefix(n, namePrefix) {
			out = append(out, strings.TrimPrefix(n, namePrefix))
		}
	}
	return out, nil
}
