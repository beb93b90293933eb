package kind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
)

// nodeFromImage finds out what a node made from a node image in the engine will run: from
// a skewcheck node image's labels, or by asking any other kind node image (kindest/node)
// itself, through its /kind/version and its own kubeadm.
func nodeFromImage(ctx context.Context, eng *engine, ref string) (node, error) {
	labels, ok, err := eng.imageLabels(ctx, ref)
	if err != nil {
		return node{}, err
	}
	if !ok {
		return node{}, fmt.Errorf("node image %s is not in the Docker engine; build it with `skewcheck images node --version <version>`", ref)
	}
	if labels[nodeimage.VersionLabel] == "" {
		return probeNodeImage(ctx, ref)
	}
	n := node{version: labels[nodeimage.VersionLabel], image: ref}
	if err := json.Unmarshal([]byte(labels[nodeimage.ImagesLabel]), &n.images); err != nil {
		return node{}, fmt.Errorf("image %s has a broken %s label (%v): rebuild it with `skewcheck images node --version %s`", ref, nodeimage.ImagesLabel, err, n.version)
	}
	return n, nil
}

// probeScript prints a kind node image's Kubernetes version, then the images its kubeadm
// runs for that version (kind's node images carry exactly those, preloaded). kubeadm needs
// no network for a version given exactly.
const probeScript = `test -s /kind/version || { echo "it has no /kind/version" >&2; exit 3; }
v=$(cat /kind/version); echo "$v"
command -v kubeadm >/dev/null || { echo "it has no kubeadm" >&2; exit 3; }
kubeadm config images list --kubernetes-version "$v"`

// probeNodeImage runs probeScript in a throwaway container of ref.
func probeNodeImage(ctx context.Context, ref string) (node, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "run", "--rm", "--network", "none", "--entrypoint", "/bin/sh", ref, "-c", probeScript)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return node{}, fmt.Errorf("image %s is not a kind node image (asked for its /kind/version and `kubeadm config images list`: %v: %s); use kindest/node:<version>, or build one offline with `skewcheck images node --version <version>`",
			ref, err, strings.TrimSpace(lastLines(errb.String(), 5)))
	}
	version, list, _ := strings.Cut(out.String(), "\n")
	version = strings.TrimSpace(version)
	set, err := nodeimage.ParseImageList(version, list)
	if err != nil {
		return node{}, fmt.Errorf("node image %s: %w", ref, err)
	}
	return node{version: version, image: ref, images: set.Images}, nil
}

// pullIfMissing pulls ref when the engine does not have it, saying so (a node image is
// about a gigabyte).
func pullIfMissing(ctx context.Context, eng *engine, ref string, out io.Writer) error {
	if _, ok, err := eng.imageLabels(ctx, ref); err != nil || ok {
		return err
	}
	fmt.Fprintf(out, "pulling node image %s (about 1 GB)\n", ref)
	if err := eng.pull(ctx, ref); err != nil {
		return fmt.Errorf("node image %s is not in the Docker engine and pulling it failed: %w; where no registry is reachable, name no node images: skewcheck builds its own offline", ref, err)
	}
	return nil
}

// givenNodes reads the node images the user named, by the version each carries.
func givenNodes(ctx context.Context, eng *engine, refs []string, out io.Writer) (map[string]node, error) {
	byVersion := map[string]node{}
	for _, ref := range refs {
		if err := pullIfMissing(ctx, eng, ref, out); err != nil {
			return nil, err
		}
		n, err := nodeFromImage(ctx, eng, ref)
		if err != nil {
			return nil, err
		}
		if other, ok := byVersion[n.version]; ok {
			return nil, fmt.Errorf("node images %s and %s both carry Kubernetes %s: name one image per version", other.image, ref, n.version)
		}
		fmt.Fprintf(out, "node image %s carries Kubernetes %s\n", ref, n.version)
		byVersion[n.version] = n
	}
	return byVersion, nil
}
