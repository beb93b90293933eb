package containers

import (
	"context"
	"fmt"
	"io"

	"github.com/containerd/errdefs"
)

// RequireImage fails, saying how to get it there, when ref is not in the local engine.
// skewcheck never pulls: a missing image is the user's to build or load, and where no
// registry is reachable a pull could only hang or fail later with a less useful message.
func (r *Runtime) RequireImage(ctx context.Context, ref string) error {
	_, err := r.client().ImageInspect(ctx, ref)
	if errdefs.IsNotFound(err) {
		return fmt.Errorf("image %q is not in the local Docker engine, and skewcheck does not pull images: "+
			"build it here (docker build -t %s .) or load it (docker load -i image.tar); "+
			"skewcheck's reference is built with `skewcheck images reference --tag %s`", ref, ref, ref)
	}
	if err != nil {
		return fmt.Errorf("looking up image %q in the local Docker engine: %w", ref, err)
	}
	return nil
}

// SaveImage writes ref from the local engine as a `docker save` archive to w.
func (r *Runtime) SaveImage(ctx context.Context, ref string, w io.Writer) error {
	rc, err := r.client().ImageSave(ctx, []string{ref})
	if err != nil {
		return fmt.Errorf("saving image %q from the local Docker engine: %w", ref, err)
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}
