package containers

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"
)

// TestRemoveUnusedImages: of the images carrying a label, those no container uses are
// removed, but for the one to keep; one a container was made from (never started) stays,
// and so does an image without the label. The label is this test's own, so no real image
// of skewcheck's is touched.
func TestRemoveUnusedImages(t *testing.T) {
	ctx := context.Background()
	r := requireEngine(t)
	label := fmt.Sprintf("io.skewcheck.test-image=%d", os.Getpid())
	ref := func(name string) string { return fmt.Sprintf("skewcheck-test/etcd:%d-%s", os.Getpid(), name) }
	importImage(t, r, ref("old"), "LABEL "+label)
	importImage(t, r, ref("used"), "LABEL "+label)
	importImage(t, r, ref("current"), "LABEL "+label)
	importImage(t, r, ref("unlabelled"), "LABEL io.skewcheck.test-other=1")
	user := create(t, r, ref("used"), ContainerName("image-user"), ownerLabels())
	defer r.remove(ctx, user)

	unlock, err := LockImages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	removed, err := r.RemoveUnusedImages(ctx, label, ref("current"))
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{ref("old")}) {
		t.Errorf("removed %q, want only %s", removed, ref("old"))
	}
	for name, want := range map[string]bool{"old": false, "used": true, "current": true, "unlabelled": true} {
		_, err := r.client().ImageInspect(ctx, ref(name))
		if there := err == nil; there != want || (err != nil && !errdefs.IsNotFound(err)) {
			t.Errorf("image %s: there %v (%v), want %v", ref(name), there, err, want)
		}
	}
}

// importImage imports an image with no files and the given Dockerfile changes (LABEL ...).
// importImage makes an image of one empty layer, with Dockerfile changes (LABEL ...),
// removed at the test's end.
func importImage(t *testing.T, r *Runtime, ref string, changes ...string) {
	t.Helper()
	var layer bytes.Buffer
	tar.NewWriter(&layer).Close()
	rc, err := r.client().ImageImport(context.Background(), client.ImageImportSource{Source: &layer, SourceName: "-"}, ref, client.ImageImportOptions{Changes: changes})
	if err != nil {
		t.Fatalf("importing %s: %v", ref, err)
	}
	io.Copy(io.Discard, rc)
	rc.Close()
	t.Cleanup(func() { r.client().ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true}) })
}
