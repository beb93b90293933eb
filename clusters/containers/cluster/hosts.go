package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// Addresses on the cluster's /24: .1 is this machine's end of the bridge, etcd .2,
// apiserver i .(10+i), as on the local provider's loopback block.
const (
	etcdHost   = 2
	serverBase = 10
	etcdPort   = 2379
)

// Hosts runs a cluster's etcd and apiservers as containers (local.Hosts).
type Hosts struct {
	rt       *containers.Runtime
	net      *containers.Network
	name     string
	skewbin  string // a static skewcheck: the etcd image's entrypoint
	progress io.Writer
	dir      string // the cluster's directory, mounted into every container
	etcd     *containers.Container

	mu      sync.Mutex
	images  map[string]string                // binary -> its image
	servers map[string]*proc                 // server name -> its latest container
	pods    map[string]*containers.Container // server name -> the holder of its address
	closed  bool
}

var _ local.Hosts = (*Hosts)(nil)

// newHosts connects to the engine and makes the cluster's network.
func newHosts(ctx context.Context, name, skewcheckBinary string, progress io.Writer) (*Hosts, error) {
	rt, err := containers.Connect(ctx)
	if err != nil {
		return nil, err
	}
	h := &Hosts{rt: rt, name: name, skewbin: skewcheckBinary, progress: progress, images: map[string]string{}, servers: map[string]*proc{},
		pods: map[string]*containers.Container{}}
	if h.net, err = rt.CreateNetwork(ctx, name); err != nil {
		rt.Close()
		return nil, err
	}
	fmt.Fprintf(progress, "created Docker network %s (%s)\n", h.net.Name, h.net.IP(0)+"/24")
	return h, nil
}

func (h *Hosts) Kind() string { return "containers" }

// Network is the cluster's Docker network.
func (h *Hosts) Network() *containers.Network { return h.net }

func (h *Hosts) Place(i int, s *local.Server) error {
	s.IP = h.net.IP(serverBase + i + 1)
	s.Hostname = h.name + "-" + s.Name
	return nil
}

// image returns the image of binary, building it the first time, with labels.
func (h *Hosts) image(ctx context.Context, repo, binary string, cmd []string, labels map[string]string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ref, ok := h.images[binary]; ok {
		return ref, nil
	}
	ref, err := imageRef(repo, binary)
	if err != nil {
		return "", err
	}
	if h.rt.RequireImage(ctx, ref) != nil {
		fmt.Fprintf(h.progress, "building image %s from %s\n", ref, binary)
		if err := images.BuildImage(ctx, h.rt, images.Image{Ref: ref, Entrypoint: binary, Cmd: cmd, Labels: labels}, io.Discard); err != nil {
			return "", err
		}
	}
	h.images[binary] = ref
	return ref, nil
}

// etcdImageLabel marks the etcd images skewcheck builds. Each skewcheck build makes its own
// (the image holds the binary), about 107 MB, so a run removes those older builds left.
const etcdImageLabel = "io.skewcheck.image"

func (h *Hosts) StartEtcd(ctx context.Context, dir string) (string, error) {
	h.dir = dir
	// From finding the image to starting etcd's container, no other run may remove it.
	unlock, err := containers.LockImages(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	ref, err := h.image(ctx, "etcd", h.skewbin, []string{"etcd"}, map[string]string{etcdImageLabel: "etcd"})
	if err != nil {
		return "", fmt.Errorf("the etcd image is built from a static skewcheck (its etcd command): %w", err)
	}
	removed, err := h.rt.RemoveUnusedImages(ctx, etcdImageLabel+"=etcd", ref)
	if err != nil {
		fmt.Fprintf(h.progress, "warning: removing the etcd images of older skewcheck builds: %v\n", err)
	}
	for _, r := range removed {
		fmt.Fprintf(h.progress, "removed image %s, an older skewcheck build's etcd\n", r)
	}
	ip := h.net.IP(etcdHost)
	c, err := h.rt.Start(ctx, containers.Spec{Name: h.name + "-etcd", Image: ref, Cmd: []string{"etcd", "--data-dir", dir, "--ip", ip},
		Hostname: h.name + "-etcd", Network: h.net, IP: ip, Aliases: []string{h.name + "-etcd"},
		ReadWrite: []string{dir}, Log: filepath.Join(dir, "etcd.log")})
	unlock()
	if err != nil {
		return "", err
	}
	h.etcd = c
	url := fmt.Sprintf("http://%s:%d", ip, etcdPort)
	if err := waitListening(ctx, c, fmt.Sprintf("%s:%d", ip, etcdPort), 60*time.Second); err != nil {
		return "", fmt.Errorf("etcd in container %s: %w; its log %s ends with:\n%s", c.Name, err, filepath.Join(dir, "etcd.log"), logtail.Tail(filepath.Join(dir, "etcd.log"), 15))
	}
	return url, nil
}

// StartServer runs the apiserver in a container of its own that joins its pod's network
// namespace (network mode container:<pod>), and so has the pod's address and hostname.
func (h *Hosts) StartServer(ctx context.Context, s *local.Server, argv []string, log *os.File) (local.Proc, error) {
	ref, err := h.image(ctx, apiserverRepo(argv[0]), argv[0], nil, nil)
	if err != nil {
		return nil, err
	}
	pod, err := h.pod(ctx, s)
	if err != nil {
		return nil, err
	}
	c, err := h.rt.Start(ctx, containers.Spec{Name: h.name + "-" + s.Name, Image: ref, Cmd: argv[1:],
		NetworkMode: "container:" + pod.Name, ReadWrite: []string{h.dir}, Log: log.Name()})
	if err != nil {
		return nil, fmt.Errorf("starting %s (%s) in a container: %w", s.Name, s.Version, err)
	}
	p := &proc{c: c}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		// Deleted (interrupted) while this one was being made: nothing may outlive Close.
		c.Stop(0)
		return nil, fmt.Errorf("%s: the cluster was deleted while its container started", s.Name)
	}
	h.servers[s.Name] = p
	return p, nil
}

// pod returns the container that holds server s's address and hostname, starting it the
// first time. It is the server's machine, as a pod's pause container is: the apiserver's
// containers come and go in its network namespace (a crash, a restart at another version),
// while the address stays. So a crashed server's address answers RST, as a live host whose
// process died does, and peers see "connection refused" at once; and a partition cuts the
// pod off the network. Its network namespace becomes the server's NetNS.
func (h *Hosts) pod(ctx context.Context, s *local.Server) (*containers.Container, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.pods[s.Name]; p != nil {
		return p, nil
	}
	if h.closed {
		return nil, fmt.Errorf("%s: the cluster was deleted while it started", s.Name)
	}
	holder, err := images.Holder(ctx, h.rt, h.progress)
	if err != nil {
		return nil, fmt.Errorf("building the image that holds each server's address: %w", err)
	}
	p, err := h.rt.Start(ctx, containers.Spec{Name: h.name + "-" + s.Name + "-pod", Image: holder,
		Hostname: s.Hostname, Network: h.net, IP: s.IP, Aliases: []string{s.Hostname}, Log: filepath.Join(s.Dir, "pod.log")})
	if err != nil {
		return nil, fmt.Errorf("starting the pod of %s: %w", s.Name, err)
	}
	h.pods[s.Name] = p
	// The pod's network namespace is the server's for its whole life (its apiserver's
	// containers only join it), so packet faults on the server's own traffic go there.
	pid, err := p.Pid(ctx)
	if err != nil || pid == 0 {
		return nil, fmt.Errorf("finding the network namespace of %s's pod %s by its process (pid %d): %v; see docker inspect %s", s.Name, p.Name, pid, err, p.Name)
	}
	s.NetNS = fmt.Sprintf("/proc/%d/ns/net", pid)
	return p, nil
}

// Close removes etcd's container, the pods and the network, after every apiserver's. An
// apiserver container still there is one a stop did not see: it was being started when
// the cluster was deleted (Ctrl-C during a restart); it is removed too.
func (h *Hosts) Close() error {
	h.mu.Lock()
	h.closed = true
	servers, pods := h.servers, h.pods
	h.mu.Unlock()
	var errs []error
	for _, p := range servers {
		errs = append(errs, p.c.Stop(0))
	}
	for _, p := range pods {
		errs = append(errs, p.Stop(0))
	}
	if h.etcd != nil {
		errs = append(errs, h.etcd.Stop(10*time.Second))
	}
	if h.net != nil {
		errs = append(errs, h.net.Remove())
	}
	h.rt.Close()
	return errors.Join(errs...)
}
