package containers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"golang.org/x/sys/unix"
)

// RemoveUnusedImages removes the local images carrying label (key=value) but for keep, each
// unless a container uses it (running or not): the engine refuses to remove those without
// force, and skewcheck never forces. It returns the references it removed. Call it holding
// LockImages, so that no other run is between finding one of these images and starting a
// container from it.
func (r *Runtime) RemoveUnusedImages(ctx context.Context, label, keep string) ([]string, error) {
	list, err := r.client().ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("label", label)})
	if err != nil {
		return nil, fmt.Errorf("listing the images labelled %s: %w", label, err)
	}
	var removed []string
	for _, img := range list.Items {
		if slices.Contains(img.RepoTags, keep) {
			continue
		}
		used, err := r.client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("ancestor", img.ID)})
		if err != nil {
			return removed, fmt.Errorf("listing the containers of image %s: %w", img.ID, err)
		}
		if len(used.Items) > 0 {
			continue
		}
		for _, ref := range img.RepoTags {
			if _, err := r.client().ImageRemove(ctx, ref, client.ImageRemoveOptions{PruneChildren: true}); err != nil {
				if errdefs.IsConflict(err) || errdefs.IsNotFound(err) {
					continue // a container started from it since, or another run removed it
				}
				return removed, fmt.Errorf("removing image %s: %w (remove it by hand with docker rmi %s)", ref, err, ref)
			}
			removed = append(removed, ref)
		}
	}
	return removed, nil
}

// LockImages takes the machine-wide lock on skewcheck's own images: held from finding or
// building an image to starting a container from it, and while removing old ones, so one
// run never removes an image another is about to run. It waits while another run holds it;
// unlock may be called more than once.
func LockImages(ctx context.Context) (unlock func(), err error) {
	var f *os.File
	for _, dir := range []string{"/run/skewcheck", filepath.Join(os.TempDir(), "skewcheck")} {
		if err = os.MkdirAll(dir, 0o755); err == nil {
			if f, err = os.OpenFile(filepath.Join(dir, "images.lock"), os.O_CREATE|os.O_RDWR, 0o644); err == nil {
				break
			}
		}
	}
	if f == nil {
		return nil, fmt.Errorf("cannot make the images lock in /run/skewcheck or $TMPDIR/skewcheck: %w", err)
	}
	for unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	var once sync.Once
	return func() { once.Do(func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }) }, nil
}
