package dataplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/netns"
	"github.com/skewcheck/skewcheck/clusters/process"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/interrupt"
)

// Config says which dataplane to run and which apiserver it watches.
type Config struct {
	Spec Spec
	// Admin reaches the apiserver the dataplane watches (any server of a local cluster); the
	// harness writes Nodes, Services and EndpointSlices with it.
	Admin *rest.Config
	// Identity is who the dataplane is to the apiserver (same server as Admin); Admin when
	// nil. kube-proxy's own identity (local.Cluster.AsNodeProxier) shows a dataplane
	// needs no more than upstream grants kube-proxy.
	Identity *rest.Config
	// Dir keeps the dataplane's log and kubeconfig; a temporary directory when empty.
	Dir string
	// Machine, when set, is an existing machine to run the dataplane on (a kind node)
	// instead of a network namespace of its own.
	Machine *Machine
	// NodeName is the Node object the dataplane runs as (default skewcheck-node).
	NodeName string
	// SyncBound is the bound a change of a Service must take effect within (default 10s).
	SyncBound time.Duration
	// ReadyTimeout bounds the wait for the dataplane to serve a first NodePort (default 60s).
	ReadyTimeout time.Duration
	Progress     io.Writer
}

// Dataplane is a running dataplane in its topology.
type Dataplane struct {
	cfg      Config
	topo     *topology
	bridge   *apiBridge
	backends []*http.Server
	cmd      running
	fw       *framework.Dataplane
	// rt and holder are the Docker engine and the node's container, for an Image;
	// nodeContainer is the container whose namespace is the node's (the holder's, or the
	// Machine's), which an Image's container joins.
	rt            *containers.Runtime
	holder        *containers.Container
	nodeContainer string
	untrack       func()
	// mu makes Close (also from the interrupt handler) and Start's building exclusive.
	mu     sync.Mutex
	closed bool
}

// running is a started dataplane: a process, or a container (Image).
type running interface {
	Exited() (bool, string)
	Stop(grace time.Duration) error
}

// Unsupported is returned by Start when the machine cannot run the dataplane; callers
// skip with its reason rather than fail.
type Unsupported struct{ Reason string }

func (u Unsupported) Error() string { return u.Reason }

// Start builds the topology, registers the node, starts the dataplane and waits until it
// serves a NodePort from outside the node: from then on it is programming Services.
func Start(ctx context.Context, cfg Config) (_ *Dataplane, err error) {
	if r := cfg.Spec.Unsupported(); r != "" {
		return nil, Unsupported{Reason: r}
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("running a dataplane needs root: it builds network namespaces and the dataplane programs nftables or iptables inside them; run as root (sudo -E)")
	}
	if cfg.NodeName == "" {
		cfg.NodeName = "skewcheck-node"
	}
	if cfg.SyncBound == 0 {
		cfg.SyncBound = 10 * time.Second
	}
	if cfg.ReadyTimeout == 0 {
		cfg.ReadyTimeout = 60 * time.Second
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Dir == "" {
		if cfg.Dir, err = os.MkdirTemp("", "skewcheck-dataplane-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(cfg.Dir, "node.kubeconfig")
	info := NodeInfo{Name: cfg.NodeName, IP: nodeIP, Kubeconfig: kubeconfig, Dir: cfg.Dir}
	// Before anything exists: it may build kube-proxy, which takes minutes the first time.
	p, err := cfg.Spec.Process(ctx, info)
	if err != nil {
		return nil, fmt.Errorf("preparing dataplane %s: %w", cfg.Spec.Name(), err)
	}
	d := &Dataplane{cfg: cfg}
	d.untrack = interrupt.OnInterrupt(func() { d.Close() })
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	if err := d.build(ctx, p, kubeconfig); err != nil {
		return nil, err
	}
	began := time.Now()
	if err := d.waitServing(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Progress, "dataplane %s: serving NodePorts after %s\n", cfg.Spec.Name(), time.Since(began).Round(100*time.Millisecond))
	return d, nil
}

// build makes the topology, the node and the process, holding the lock that Close takes, so
// an interrupt in the middle finds either nothing or whole parts to tear down.
func (d *Dataplane) build(ctx context.Context, p Process, kubeconfig string) (err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("dataplane %s: closed (interrupted) while starting", d.cfg.Spec.Name())
	}
	cfg := d.cfg
	fmt.Fprintf(cfg.Progress, "dataplane %s: building the network (node, backends, load balancer, client)\n", cfg.Spec.Name())
	img, isImage := cfg.Spec.(Image)
	var node *netns.Host
	switch {
	case cfg.Machine != nil:
		if isImage {
			if err := d.connectEngine(ctx, img); err != nil {
				return err
			}
		}
		if node, err = netns.Adopt(cfg.Machine.Container, cfg.Machine.Pid); err != nil {
			return err
		}
		d.nodeContainer = cfg.Machine.Container
	case isImage:
		if node, err = d.startNode(ctx, img); err != nil {
			return err
		}
	}
	if d.topo, err = newTopology(node); err != nil {
		if node != nil {
			node.Close()
		}
		return err
	}
	for i, ip := range []string{backend1IP, backend2IP} {
		srv, err := serveBackend(d.topo.backend, fmt.Sprintf("backend-%d", i+1), ip)
		if err != nil {
			return err
		}
		d.backends = append(d.backends, srv)
	}
	if cfg.Machine == nil {
		if d.bridge, err = newAPIBridge(d.topo.node, cfg.Admin.Host); err != nil {
			return err
		}
	}
	identity := cfg.Identity
	if identity == nil {
		identity = cfg.Admin
	}
	if err := writeNodeKubeconfig(kubeconfig, identity); err != nil {
		return err
	}
	if err := registerNode(ctx, cfg.Admin, cfg.NodeName); err != nil {
		return err
	}
	d.fw = d.describe()
	if isImage {
		fmt.Fprintf(cfg.Progress, "dataplane %s: starting image %s in the node's network namespace (log: %s)\n", cfg.Spec.Name(), img.Ref, d.Log())
		d.cmd, err = d.startImage(ctx, img, p)
		return err
	}
	fmt.Fprintf(cfg.Progress, "dataplane %s: starting %s on the node (log: %s)\n", cfg.Spec.Name(), filepath.Base(p.Argv[0]), d.Log())
	cmd := d.topo.node.Command(context.Background(), p.Argv[0], p.Argv[1:]...)
	cmd.Env = append(os.Environ(), p.Env...)
	proc, err := process.Start(cmd, d.Log())
	if err != nil {
		return fmt.Errorf("starting dataplane %s: %w", cfg.Spec.Name(), err)
	}
	d.cmd = proc
	return nil
}

func (d *Dataplane) describe() *framework.Dataplane {
	fw := &framework.Dataplane{
		Name: d.cfg.Spec.Name(), Version: d.cfg.Spec.Release(), Admin: d.cfg.Admin, Node: d.cfg.NodeName, NodeIP: nodeIP,
		Backends: []framework.Backend{
			{Name: "backend-1", IP: backend1IP, Port: backendPort},
			{Name: "backend-2", IP: backend2IP, Port: backendPort},
		},
		LoadBalancer: &loadBalancer{host: d.topo.lb, seen: map[string]bool{}},
		FromNode:     client(d.topo.node), FromClient: client(d.topo.client),
		SyncBound: d.cfg.SyncBound,
	}
	for i := 0; i < lbIPCount; i++ {
		fw.LBIPs = append(fw.LBIPs, lbIP(i))
		fw.LBHostnames = append(fw.LBHostnames, lbHostname(i))
	}
	return fw
}

// Framework is the dataplane as the suites see it.
func (d *Dataplane) Framework() *framework.Dataplane { return d.fw }

// Log is the path of the dataplane's own output.
func (d *Dataplane) Log() string { return filepath.Join(d.cfg.Dir, "dataplane.log") }

// waitServing waits until a NodePort answers from the client host: the dataplane has
// synced Services and EndpointSlices. A dataplane that exits first fails at once, with the
// end of its log.
func (d *Dataplane) waitServing(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(d.cfg.Admin)
	if err != nil {
		return err
	}
	nodePort, del, err := createCanary(ctx, cs, d.cfg.NodeName)
	if err != nil {
		return err
	}
	defer del(context.Background())
	deadline := time.Now().Add(d.cfg.ReadyTimeout)
	var last error
	for time.Now().Before(deadline) {
		if exited, how := d.cmd.Exited(); exited {
			return fmt.Errorf("dataplane %s exited before serving (%s); the end of its log:\n%s", d.cfg.Spec.Name(), how, logtail.Tail(d.Log(), 15))
		}
		if last = canaryAnswers(ctx, d.fw.FromClient, nodePort); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("dataplane %s did not serve NodePort %d within %s (last try: %v); the end of its log (%s):\n%s",
		d.cfg.Spec.Name(), nodePort, d.cfg.ReadyTimeout, last, d.Log(), logtail.Tail(d.Log(), 15))
}

// registerNode creates the Node the dataplane runs as, with the node's address, as a kubelet
// would; dataplanes find their node IP there.
func registerNode(ctx context.Context, admin *rest.Config, name string) error {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"skewcheck.io/fixture": "true", corev1.LabelHostname: name}}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("registering Node %s: %w", name, err)
	}
	// Where a controller manager runs (kind), its node lifecycle controller writes the new
	// Node too (a taint): write the status onto the Node as it is then.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP}, {Type: corev1.NodeHostName, Address: name}}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "SkewcheckNode",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
		_, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the address of Node %s: %w", name, err)
	}
	return nil
}

// Close stops the dataplane, removes its Node and deletes the whole topology, so nothing
// the dataplane programmed outlives the run.
func (d *Dataplane) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	if d.cmd != nil {
		errs = append(errs, d.cmd.Stop(5*time.Second))
	}
	if d.fw != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if cs, err := kubernetes.NewForConfig(d.cfg.Admin); err == nil {
			cs.CoreV1().Nodes().Delete(ctx, d.cfg.NodeName, metav1.DeleteOptions{})
		}
		cancel()
	}
	for _, b := range d.backends {
		b.Close()
	}
	if d.bridge != nil {
		d.bridge.close()
	}
	if d.topo != nil {
		errs = append(errs, d.topo.close())
	}
	// The node's container last: its namespace is the node's, wired into the topology.
	if d.holder != nil {
		errs = append(errs, d.holder.Stop(0))
	}
	if d.rt != nil {
		d.rt.Close()
	}
	if d.untrack != nil {
		d.untrack()
	}
	return errors.Join(errs...)
}
