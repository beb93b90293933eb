package nodeimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// Repository is where node images are tagged: skewcheck-kind/node:<version>.
const Repository = "skewcheck-kind/node"

// Labels a node image carries for the kind provider.
const (
	// VersionLabel holds the Kubernetes version of the node's components.
	VersionLabel = "io.skewcheck.kind-node.version"
	// ImagesLabel holds the JSON of Images: the images kubeadm will run on the node.
	ImagesLabel = "io.skewcheck.kind-node.images"
)

// Images are the control-plane images a node carries, by component.
type Images struct {
	APIServer         string `json:"kube-apiserver"`
	ControllerManager string `json:"kube-controller-manager"`
	Scheduler         string `json:"kube-scheduler"`
	Etcd              string `json:"etcd"`
	Pause             string `json:"pause"`
}

// Options says what node image to build.
type Options struct {
	// Version is the Kubernetes version: exact (v1.36.3), a minor (1.36) or latest.
	Version string
	// Binaries says where Kubernetes binaries come from (its CacheDir is also where the root
	// filesystem and helper programs are cached).
	Binaries binaries.Options
	// Progress receives a line per step; nil discards.
	Progress io.Writer
}

// Result is a node image in the local Docker engine.
type Result struct {
	Ref     string
	Version string
	Cached  bool // it was there already, made from the same content
}

// Build makes the node image of one Kubernetes version in the local Docker engine, or finds
// it there when it was made from the same content. Cold, it builds six Kubernetes binaries,
// etcd and a Debian root filesystem (tens of minutes on 2 cores); everything is cached.
func Build(ctx context.Context, opts Options) (Result, error) {
	p := newProgress(opts.Progress)
	if opts.Binaries.CacheDir == "" {
		opts.Binaries.CacheDir = binaries.DefaultCacheDir()
	}
	if opts.Binaries.Progress == nil {
		opts.Binaries.Progress = opts.Progress
	}
	cache := opts.Binaries.CacheDir
	eng, err := connect(ctx)
	if err != nil {
		return Result{}, err
	}
	defer eng.close()

	version, err := binaries.Resolve(ctx, opts.Version)
	if err != nil {
		return Result{}, err
	}
	if opts.Binaries.Source == binaries.SourceCache {
		if err := requireCached(ctx, cache, version, opts.Binaries); err != nil {
			return Result{}, err
		}
	}
	// The root filesystem (debootstrap: network and disk) is made while the binaries are
	// built (CPU), which on a cold machine saves its two minutes.
	type rootfsResult struct {
		path string
		err  error
	}
	rootfsDone := make(chan rootfsResult, 1)
	rootfsCtx, cancelRootfs := context.WithCancel(ctx)
	defer cancelRootfs()
	go func() {
		path, err := rootfsTar(rootfsCtx, cache, p)
		rootfsDone <- rootfsResult{path, err}
	}()
	bins := map[binaries.Component]string{}
	for _, c := range nodeBinaries {
		path, err := binaries.Ensure(ctx, c, version, opts.Binaries)
		if err != nil {
			return Result{}, err
		}
		bins[c] = path
	}
	set, err := kubeadmImages(ctx, bins[binaries.Kubeadm], version)
	if err != nil {
		return Result{}, err
	}
	etcd, err := ensureGoProgram(ctx, cache, etcdProgram, p)
	if err != nil {
		return Result{}, err
	}
	pause, err := ensureGoProgram(ctx, cache, pauseProgram, p)
	if err != nil {
		return Result{}, err
	}
	images := set.Images
	contentKey, err := nodeKey(version, images, bins, etcd, pause)
	if err != nil {
		return Result{}, err
	}
	ref := Repository + ":" + version
	res := Result{Ref: ref, Version: version}
	if labels, ok, err := eng.labels(ctx, ref); err != nil {
		return res, err
	} else if ok && labels[ContentLabel] == contentKey {
		p.printf("%s is up to date (made from the same binaries and files)", ref)
		res.Cached = true
		return res, nil
	}

	start := time.Now()
	rr := <-rootfsDone
	if rr.err != nil {
		return res, rr.err
	}
	rootfs := rr.path
	work, err := os.MkdirTemp(filepath.Join(cache, "kind"), "node-"+version+"-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(work)
	p.printf("making the images kubeadm %s runs: %s, %s, %s, %s, %s (left out: %s, whose addons are off)",
		version, images.APIServer, images.ControllerManager, images.Scheduler, images.Etcd, images.Pause, strings.Join(set.Skipped, ", "))
	stage := filepath.Join(work, "stage")
	if err := stageNode(stage, work, version, images, bins, etcd, pause); err != nil {
		return res, err
	}
	base, err := layerFromTar(rootfs)
	if err != nil {
		return res, err
	}
	p.printf("packing the node layer")
	top, err := layerFromDir(stage, filepath.Join(work, "node-layer.tar"))
	if err != nil {
		return res, err
	}
	imagesJSON, _ := json.Marshal(images)
	img, err := imageOf(v1.Config{
		Entrypoint: []string{"/usr/local/bin/entrypoint", "/sbin/init"},
		Env:        []string{"container=docker", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		// systemd stops cleanly on SIGRTMIN+3, not on SIGTERM.
		StopSignal: "SIGRTMIN+3",
		Labels:     map[string]string{ContentLabel: contentKey, VersionLabel: version, ImagesLabel: string(imagesJSON)},
	}, base, top)
	if err != nil {
		return res, err
	}
	p.printf("loading %s into the Docker engine", ref)
	stop := p.every(30*time.Second, "still loading "+ref)
	err = eng.replaceOwn(ctx, ref, img)
	stop()
	if err != nil {
		return res, err
	}
	p.printf("built %s in %s", ref, time.Since(start).Round(time.Second))
	return res, nil
}

// stageNode lays out, under dir, every file the node adds to the Debian root filesystem.
func stageNode(dir, work, version string, images Images, bins map[binaries.Component]string, etcd, pause string) error {
	var conf bytes.Buffer
	if err := template.Must(template.New("containerd").Parse(string(file("containerd.toml")))).Execute(&conf, images); err != nil {
		return err
	}
	put := []struct {
		path string
		data []byte
		mode fs.FileMode
	}{
		{"usr/local/bin/entrypoint", file("entrypoint"), 0o755},
		{"usr/local/bin/skewcheck-preload", file("skewcheck-preload"), 0o755},
		{"etc/systemd/system/kubelet.service", file("kubelet.service"), 0o644},
		{"etc/systemd/system/kubelet.service.d/10-kubeadm.conf", file("10-kubeadm.conf"), 0o644},
		{"etc/systemd/system/kubelet.slice", file("kubelet.slice"), 0o644},
		{"etc/systemd/system/skewcheck-preload.service", file("skewcheck-preload.service"), 0o644},
		{"etc/default/kubelet", file("kubelet.default"), 0o644},
		{"etc/containerd/config.toml", conf.Bytes(), 0o644},
		{"etc/cni/net.d/10-skewcheck.conflist", file("10-skewcheck.conflist"), 0o644},
		{"kind/version", []byte(version), 0o644},
		{"kind/manifests/default-storage.yaml", file("default-storage.yaml"), 0o644},
	}
	for _, f := range put {
		if err := writeFile(filepath.Join(dir, f.path), f.data, f.mode); err != nil {
			return err
		}
	}
	for _, c := range []binaries.Component{binaries.Kubelet, binaries.Kubeadm, binaries.Kubectl} {
		if err := os.MkdirAll(filepath.Join(dir, "usr", "bin"), 0o755); err != nil {
			return err
		}
		if err := copyFile(bins[c], filepath.Join(dir, "usr", "bin", string(c)), 0o755); err != nil {
			return err
		}
	}
	// Enabling a unit is a symlink in the target's wants directory.
	wants := filepath.Join(dir, "etc", "systemd", "system", "multi-user.target.wants")
	if err := os.MkdirAll(wants, 0o755); err != nil {
		return err
	}
	for unit, target := range map[string]string{
		"containerd.service":        "/lib/systemd/system/containerd.service",
		"kubelet.service":           "/etc/systemd/system/kubelet.service",
		"skewcheck-preload.service": "/etc/systemd/system/skewcheck-preload.service",
	} {
		if err := os.Symlink(target, filepath.Join(wants, unit)); err != nil {
			return err
		}
	}
	archives := filepath.Join(dir, "kind", "images")
	if err := os.MkdirAll(archives, 0o755); err != nil {
		return err
	}
	for _, b := range []struct{ binary, name, ref string }{
		{bins[binaries.KubeAPIServer], "kube-apiserver", images.APIServer},
		{bins[binaries.KubeControllerManager], "kube-controller-manager", images.ControllerManager},
		{bins[binaries.KubeScheduler], "kube-scheduler", images.Scheduler},
		{etcd, "etcd", images.Etcd},
		{pause, "pause", images.Pause},
	} {
		img, err := binaryImage(b.binary, b.name, work)
		if err != nil {
			return fmt.Errorf("making image %s: %w", b.ref, err)
		}
		if err := writeOCIArchive(img, b.ref, filepath.Join(archives, b.name+".tar"), work); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}

// nodeKey digests everything a node image is made from: the root filesystem's recipe, the
// embedded files, the binaries' contents and the image names.
func nodeKey(version string, images Images, bins map[binaries.Component]string, extra ...string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "node v1\n%s\n%s\n%+v\n", version, rootfsKey(), images)
	err := fs.WalkDir(files, "files", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		fmt.Fprintf(h, "%s %x\n", path, sha256.Sum256(b))
		return err
	})
	if err != nil {
		return "", err
	}
	paths := extra
	for _, c := range nodeBinaries {
		paths = append(paths, bins[c])
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
