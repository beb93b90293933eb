package kind

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
)

// nodeFromImage reads from a node image's labels what its node will run, and refuses an
// image that is not a skewcheck node image (a kindest/node image has other labels, and
// carries no skewcheck patches' images).
func nodeFromImage(ctx context.Context, eng *engine, ref string) (node, error) {
	labels, ok, err := eng.imageLabels(ctx, ref)
	if err != nil {
		return node{}, err
	}
	if !ok {
		return node{}, fmt.Errorf("node image %s is not in the Docker engine; build it with `skewcheck images node --version <version>`", ref)
	}
	n := node{version: labels[nodeimage.VersionLabel], image: ref}
	if n.version == "" || json.Unmarshal([]byte(labels[nodeimage.ImagesLabel]), &n.images) != nil {
		return node{}, fmt.Errorf("image %s is not a skewcheck kind node image (no %s and %s labels); build one with `skewcheck images node --version <version>`",
			ref, nodeimage.VersionLabel, nodeimage.ImagesLabel)
	}
	return n, nil
}
