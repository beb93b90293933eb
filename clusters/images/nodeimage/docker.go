package nodeimage

import (
	"context"
	"fmt"
	"io"

	"github.com/containerd/errdefs"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// ContentLabel is the image label holding the digest of everything an image was made from;
// an image whose label matches needs no rebuild.
const ContentLabel = "io.skewcheck.content"

// engine is the local Docker engine, where images built here end up.
type engine struct{ c *client.Client }

func connect(ctx context.Context) (*engine, error) {
	c, err := containers.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return &engine{c: c}, nil
}

func (e *engine) close() { e.c.Close() }

// labels returns ref's labels, or ok=false when the engine has no such image.
func (e *engine) labels(ctx context.Context, ref string) (labels map[string]string, ok bool, err error) {
	_, labels, ok, err = e.inspect(ctx, ref)
	return labels, ok, err
}

// inspect returns ref's image ID and labels, or ok=false when the engine has no such image.
func (e *engine) inspect(ctx context.Context, ref string) (id string, labels map[string]string, ok bool, err error) {
	r, err := e.c.ImageInspect(ctx, ref)
	if errdefs.IsNotFound(err) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("looking up image %s in the Docker engine: %w", ref, err)
	}
	if r.Config == nil {
		return r.ID, map[string]string{}, true, nil
	}
	return r.ID, r.Config.Labels, true, nil
}

// replaceOwn loads img as ref and removes the image ref named before, when skewcheck made
// that one (it carries ContentLabel): each rebuild would otherwise leave an untagged
// gigabyte behind. One still used by a container stays.
func (e *engine) replaceOwn(ctx context.Context, ref string, img v1.Image) error {
	oldID, oldLabels, had, err := e.inspect(ctx, ref)
	if err != nil {
		return err
	}
	if err := e.load(ctx, ref, img); err != nil {
		return err
	}
	if newID, _, _, err := e.inspect(ctx, ref); had && oldLabels[ContentLabel] != "" && err == nil && newID != oldID {
		e.c.ImageRemove(ctx, oldID, client.ImageRemoveOptions{})
	}
	return nil
}

// load streams img into the engine under ref, as `docker load` would.
func (e *engine) load(ctx context.Context, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarball.Write(tag, img, pw)) }()
	res, err := e.c.ImageLoad(ctx, pr, client.ImageLoadWithQuiet(true))
	if err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("loading %s into the Docker engine: %w", ref, err)
	}
	defer res.Close()
	out, err := io.ReadAll(res)
	if err != nil {
		return fmt.Errorf("loading %s into the Docker engine: %w", ref, err)
	}
	if _, ok, err := e.labels(ctx, ref); err != nil || !ok {
		return fmt.Errorf("loading %s into the Docker engine did not make the image (engine said: %s)", ref, out)
	}
	return nil
}
