package kind

import (
	"bytes"
	"context"
	"fmt"

	"sigs.k8s.io/kind/pkg/cluster/nodeutils"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// LoadImage copies ref from the local engine into every node of the named cluster's
// containerd, as `kind load docker-image` does: no registry is involved, so a pod can run
// an image built on this machine (pull policy IfNotPresent).
func LoadImage(ctx context.Context, rt *containers.Runtime, name, ref string) error {
	var archive bytes.Buffer
	if err := rt.SaveImage(ctx, ref, &archive); err != nil {
		return err
	}
	nodes, err := provider().ListNodes(KindName(name))
	if err != nil {
		return fmt.Errorf("listing the nodes of kind cluster %s: %w", KindName(name), err)
	}
	if len(nodes) == 0 {
		return fmt.Errorf("kind cluster %s has no nodes: is it running?", KindName(name))
	}
	for _, n := range nodes {
		if err := nodeutils.LoadImageArchive(n, bytes.NewReader(archive.Bytes())); err != nil {
			return fmt.Errorf("loading %s into node %s: %w", ref, n.String(), err)
		}
	}
	return nil
}
