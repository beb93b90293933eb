package nodeimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// LoadBalancerImage is the image kind v0.33 runs in front of several control-plane nodes
// (sigs.k8s.io/kind/pkg/cluster/internal/loadbalancer.Image, an internal constant). kind
// never pulls an image the engine has, so a look-alike under this tag is used instead.
const LoadBalancerImage = "docker.io/envoyproxy/envoy:v1.36.2"

// BuildLoadBalancer makes the look-alike of kind's load-balancer image: the node's Debian
// root filesystem (which has bash and haproxy) with an "envoy" that reads the configuration
// kind writes for envoy and runs haproxy with it. It refuses to replace an image of that
// tag it did not make (a real envoy pulled where a registry is reachable).
func BuildLoadBalancer(ctx context.Context, opts Options) (Result, error) {
	p := newProgress(opts.Progress)
	cache := opts.Binaries.CacheDir
	if cache == "" {
		cache = binaries.DefaultCacheDir()
	}
	eng, err := connect(ctx)
	if err != nil {
		return Result{}, err
	}
	defer eng.close()
	sum := sha256.Sum256(file("envoy"))
	key := hex.EncodeToString(sum[:]) + "-" + rootfsKey()
	res := Result{Ref: LoadBalancerImage}
	labels, ok, err := eng.labels(ctx, LoadBalancerImage)
	if err != nil {
		return res, err
	}
	if ok && labels[ContentLabel] == key {
		res.Cached = true
		return res, nil
	}
	if ok && labels[ContentLabel] == "" {
		return res, fmt.Errorf("the Docker engine has an image %s that skewcheck did not make (the real envoy?); it is used as it is", LoadBalancerImage)
	}
	start := time.Now()
	rootfs, err := rootfsTar(ctx, cache, p)
	if err != nil {
		return res, err
	}
	work, err := os.MkdirTemp(filepath.Join(cache, "kind"), "loadbalancer-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(work)
	stage := filepath.Join(work, "stage")
	if err := writeFile(filepath.Join(stage, "usr", "local", "bin", "envoy"), file("envoy"), 0o755); err != nil {
		return res, err
	}
	base, err := layerFromTar(rootfs)
	if err != nil {
		return res, err
	}
	top, err := layerFromDir(stage, filepath.Join(work, "layer.tar"))
	if err != nil {
		return res, err
	}
	img, err := imageOf(v1.Config{
		Env:    []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		Labels: map[string]string{ContentLabel: key},
	}, base, top)
	if err != nil {
		return res, err
	}
	p.printf("loading the load balancer look-alike %s (haproxy) into the Docker engine", LoadBalancerImage)
	if err := eng.replaceOwn(ctx, LoadBalancerImage, img); err != nil {
		return res, err
	}
	p.printf("built %s in %s", LoadBalancerImage, time.Since(start).Round(time.Second))
	return res, nil
}
