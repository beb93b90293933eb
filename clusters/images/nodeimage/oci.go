package nodeimage

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// layerFromTar is an image layer holding the tar at path. Its gzip stream is stored, not
// compressed: these layers only travel from this machine to its own engine, and
// compressing a gigabyte of binaries would cost minutes on a small machine.
func layerFromTar(path string) (v1.Layer, error) {
	l, err := tarball.LayerFromFile(path, tarball.WithCompressionLevel(gzip.NoCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("making an image layer of %s: %w", path, err)
	}
	return l, nil
}

// layerFromDir is an image layer holding the files under dir, as a tar written to tmp.
func layerFromDir(dir, tmp string) (v1.Layer, error) {
	if err := tarDir(dir, tmp); err != nil {
		return nil, err
	}
	return layerFromTar(tmp)
}

// imageOf stacks layers into a Linux image of this machine's architecture with cfg.
func imageOf(cfg v1.Config, layers ...v1.Layer) (v1.Image, error) {
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		return nil, err
	}
	img, err = mutate.Config(img, cfg)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	return mutate.ConfigFile(img, cf)
}

// binaryImage is a FROM scratch image holding one static binary at /usr/local/bin/<name>,
// where the official component images have it; kubeadm's static pods name the command, so
// PATH must find it.
func binaryImage(binary, name, work string) (v1.Image, error) {
	dir := filepath.Join(work, name+"-root")
	if err := os.MkdirAll(filepath.Join(dir, "usr", "local", "bin"), 0o755); err != nil {
		return nil, err
	}
	if err := copyFile(binary, filepath.Join(dir, "usr", "local", "bin", name), 0o755); err != nil {
		return nil, err
	}
	l, err := layerFromDir(dir, filepath.Join(work, name+"-layer.tar"))
	if err != nil {
		return nil, err
	}
	return imageOf(v1.Config{
		Env:        []string{"PATH=/usr/local/bin:/usr/bin:/bin"},
		Entrypoint: []string{"/usr/local/bin/" + name},
	}, l)
}

// writeOCIArchive writes img as an OCI image layout in a tar at out, named ref by the
// annotation containerd's import reads (io.containerd.image.name).
func writeOCIArchive(img v1.Image, ref, out, work string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	dir, err := os.MkdirTemp(work, "oci-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"io.containerd.image.name":          tag.Name(),
		"org.opencontainers.image.ref.name": tag.TagStr(),
	})); err != nil {
		return fmt.Errorf("writing %s as an OCI layout: %w", ref, err)
	}
	return tarDir(dir, out)
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}
