package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kind/pkg/cluster"
	kindexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework"
)

// Config says what kind cluster to make.
type Config struct {
	// Name is skewcheck's name for the cluster; kind's is KindName(Name).
	Name string
	// Versions has one Kubernetes version per control-plane node, oldest first (the first
	// node runs kubeadm init, the others join, as in a kubeadm upgrade).
	Versions []string
	// ServerFlags are extra kube-apiserver flags per node, keyed by 1-based node number.
	ServerFlags map[int][]string
	// NoPeerProxy are the nodes (1-based) whose apiserver runs without the Mixed Version
	// Proxy, for a front that does its job instead.
	NoPeerProxy map[int]bool
	// KubeadmPeerProxy are the nodes (1-based) whose apiserver gets no Mixed Version Proxy
	// flag of skewcheck's, as kubeadm leaves it: the gate at its default, no --peer-ca-file.
	KubeadmPeerProxy map[int]bool
	// NodeImages are kind node images to use instead of building skewcheck's, each for the
	// version it carries (kindest/node:<version> where a registry is reachable; pulled when
	// the engine lacks it). A version with none gets a node image built offline.
	NodeImages []string
	// PodNetwork lays a pod network routed between the nodes and runs kube-proxy on each
	// (podnetwork.go), for pods off their node's network. Without it only host-network pods
	// reach anything, and the nodes' netfilter is the ipmode tests' dataplane's alone.
	PodNetwork bool
	// Binaries says where Kubernetes binaries for the node images come from.
	Binaries binaries.Options
	// Dir holds the kubeconfig and the nodes' kubeadm patches; it must outlive the cluster.
	Dir string
	// Progress receives a line per step; nil discards.
	Progress io.Writer
	// ConvergeTimeout bounds the wait for every apiserver to reach its peers' GVRs
	// (default 3 minutes).
	ConvergeTimeout time.Duration
}

// Server is one control-plane node's apiserver.
type Server struct {
	Name      string // apiserver-N
	Version   string
	PeerProxy bool   // the Mixed Version Proxy on
	Node      string // the node's container (and host) name
	URL       string // the node's own endpoint, published on the host
	// AuditLog is the apiserver's audit log, on the host (mounted into the node).
	AuditLog string
}

// Cluster is a running kind cluster with skewed control-plane nodes.
type Cluster struct {
	Name         string
	Kubeconfig   string
	Servers      []Server
	LoadBalancer string // URL of kind's load balancer in front of every apiserver
	Timings      Timings

	convergeTimeout time.Duration
	control         map[string]*nodeServer // by server name, once Target or WaitConverged ran
	prepared        map[string]Prepared    // by server name: the image PrepareUpgrade loaded
	ca, caKey       []byte                 // the cluster CA (PEM), which signs further identities
}

// Timings are how long the steps of Create took.
type Timings struct {
	Images    time.Duration // node images built or found
	Create    time.Duration // kind's create: nodes, kubeadm init and joins
	Ready     time.Duration // every apiserver /readyz, from the start
	Converged time.Duration // every apiserver reaches its peers' GVRs, from the start
}

// createMu serialises creation in a process: kind reads the network to use from the
// environment (KIND_EXPERIMENTAL_DOCKER_NETWORK), which is process-wide.
var createMu sync.Mutex

// Create builds (or finds) a node image per version and makes the cluster. On any failure,
// and when ctx is cancelled, it removes every container and the network it made and
// returns why, with the tail of the nodes' logs when kubeadm failed.
func Create(ctx context.Context, cfg Config) (*Cluster, error) {
	start := time.Now()
	out := cfg.Progress
	if out == nil {
		out = io.Discard
	}
	if len(cfg.Versions) == 0 {
		return nil, errors.New("no versions given: name one Kubernetes version per control-plane node, oldest first")
	}
	if cfg.ConvergeTimeout == 0 {
		cfg.ConvergeTimeout = 3 * time.Minute
	}
	// The nodes reach the load balancer by its container's name: a DNS label, 63 characters
	// at most, or kubeadm init fails minutes later on a lookup.
	if lb := loadBalancerContainer(cfg.Name); len(lb) > 63 {
		return nil, fmt.Errorf("cluster name %q is %d characters too long for kind: its load balancer's hostname %s must be a DNS label of at most 63; give a name of at most %d characters",
			cfg.Name, len(lb)-63, lb, 63-(len(lb)-len(cfg.Name)))
	}
	// A version that does not exist is the user's to fix, whatever the state of Docker.
	cfg.Versions = slices.Clone(cfg.Versions)
	for i, v := range cfg.Versions {
		exact, err := binaries.Resolve(ctx, v)
		if err != nil {
			return nil, err
		}
		cfg.Versions[i] = exact
	}
	eng, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer eng.close()
	p := cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger{w: out}))
	existing, err := p.List()
	if err != nil {
		return nil, fmt.Errorf("listing kind clusters: %w", err)
	}
	for _, n := range existing {
		if n == KindName(cfg.Name) {
			return nil, registry.ErrExists{Name: cfg.Name, Provider: "kind"}
		}
	}

	nodes, err := nodeImages(ctx, eng, cfg, out)
	if err != nil {
		return nil, err
	}
	timings := Timings{Images: time.Since(start)}
	if err := useShimIfNeeded(ctx, nodes[0].image); err != nil {
		return nil, err
	}
	cgroupV1, err := eng.cgroupV1(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	kcfg, err := clusterConfig(cfg.Name, nodes, filepath.Join(cfg.Dir, "patches"), filepath.Join(cfg.Dir, "audit"), cgroupV1)
	if err != nil {
		return nil, err
	}
	if cgroupV1 {
		fmt.Fprintln(out, "the Docker host runs cgroup v1: kubelets are configured with failCgroupV1: false")
	}
	warnInotify(out)

	createMu.Lock()
	defer createMu.Unlock()
	os.Setenv("KIND_EXPERIMENTAL_DOCKER_NETWORK", networkName(cfg.Name))
	kindAdmin := filepath.Join(cfg.Dir, "kind-admin.kubeconfig")
	createStart := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- p.Create(KindName(cfg.Name),
			cluster.CreateWithV1Alpha4Config(kcfg),
			cluster.CreateWithKubeconfigPath(kindAdmin),
			// kept on failure so the error can carry the nodes' logs; removed below
			cluster.CreateWithRetain(true),
			cluster.CreateWithDisplayUsage(false),
			cluster.CreateWithDisplaySalutation(false))
	}()
	var createErr error
	select {
	case createErr = <-done:
	case <-ctx.Done():
		// kind's create takes no context: removing the nodes makes its next step fail.
		fmt.Fprintln(out, "interrupted: removing the nodes made so far")
		createErr = interruptCreate(p, eng, cfg.Name, kindAdmin, done)
		return nil, fmt.Errorf("creating kind cluster %s was interrupted (%v); everything it made was removed%s", KindName(cfg.Name), context.Cause(ctx), cleanupNote(createErr))
	}
	if createErr != nil {
		logs := nodeLogs(p, cfg.Name)
		cleanup := remove(p, eng, cfg.Name, kindAdmin)
		return nil, fmt.Errorf("kind could not create cluster %s: %v%s%s; everything it made was removed%s",
			KindName(cfg.Name), createErr, commandOutput(createErr), logs, cleanupNote(cleanup))
	}
	timings.Create = time.Since(createStart)

	c, err := finish(ctx, eng, p, cfg, nodes, kindAdmin)
	if err == nil {
		err = c.grantKubeletClient(ctx)
	}
	if err == nil && cfg.PodNetwork {
		err = c.startPodNetwork(ctx, p, cfg.Binaries, out)
	}
	if err != nil {
		cleanup := remove(p, eng, cfg.Name, kindAdmin)
		return nil, fmt.Errorf("%w; the cluster was removed%s", err, cleanupNote(cleanup))
	}
	c.convergeTimeout = cfg.ConvergeTimeout
	if err := c.await(ctx, cfg.ConvergeTimeout, start, &timings); err != nil {
		logs := nodeLogs(p, cfg.Name)
		cleanup := remove(p, eng, cfg.Name, kindAdmin)
		return nil, fmt.Errorf("%w%s; the cluster was removed%s", err, logs, cleanupNote(cleanup))
	}
	c.Timings = timings
	return c, nil
}

// nodeImages finds or builds the node image of every version: the one the user named for
// it, or skewcheck's, built offline.
func nodeImages(ctx context.Context, eng *engine, cfg Config, out io.Writer) ([]node, error) {
	given, err := givenNodes(ctx, eng, cfg.NodeImages, out)
	if err != nil {
		return nil, err
	}
	for v, n := range given {
		if !slices.Contains(cfg.Versions, v) {
			return nil, fmt.Errorf("node image %s carries Kubernetes %s, which no node runs (versions %s): name %s among the versions, or leave the image out",
				n.image, v, strings.Join(cfg.Versions, ","), v)
		}
	}
	var nodes []node
	for i, v := range cfg.Versions {
		n, ok := given[v] // each image is built or read once, whatever the nodes of its version
		if !ok {
			res, err := nodeimage.Build(ctx, nodeimage.Options{Version: v, Binaries: cfg.Binaries, Progress: out})
			if err != nil {
				return nil, fmt.Errorf("node image for %s: %w", v, err)
			}
			if n, err = nodeFromImage(ctx, eng, res.Ref); err != nil {
				return nil, err
			}
			given[v] = n
		}
		mode := proxyOn
		switch {
		case cfg.NoPeerProxy[i+1]:
			mode = proxyOff
		case cfg.KubeadmPeerProxy[i+1]:
			mode = proxyAsKubeadm
		}
		n.peerProxy = mode == proxyOn
		n.flags = append(nodeFlags(v, mode), cfg.ServerFlags[i+1]...)
		nodes = append(nodes, n)
	}
	if _, err := nodeimage.BuildLoadBalancer(ctx, nodeimage.Options{Binaries: cfg.Binaries, Progress: out}); err != nil && len(nodes) > 1 {
		return nil, err
	}
	return nodes, nil
}

// interruptCreate removes the cluster's containers until kind's create gives up, then
// everything else.
func interruptCreate(p *cluster.Provider, eng *engine, name, kubeconfig string, done <-chan error) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		p.Delete(KindName(name), kubeconfig)
		select {
		case <-done:
			return remove(p, eng, name, kubeconfig)
		case <-t.C:
		}
	}
}

// commandOutput is the tail of what the failed command in kind printed (kubeadm's
// output, when kubeadm failed).
func commandOutput(err error) string {
	re := kindexec.RunErrorForError(err)
	if re == nil || len(re.Output) == 0 {
		return ""
	}
	return "\n--- its output (last lines) ---\n" + lastLines(string(re.Output), 25)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func cleanupNote(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(" (but cleaning up failed: %v; remove what is left with `skewcheck cluster delete --name <name>`)", err)
}

// proxyMode is how a node's apiserver runs the Mixed Version Proxy.
type proxyMode int

const (
	proxyOn        proxyMode = iota // the gate on, the cluster CA as peer CA
	proxyOff                        // the gate off, for a front that does the proxy's job
	proxyAsKubeadm                  // no flag of skewcheck's: inert from 1.36 (kubernetes/kubeadm#3301)
)

// nodeFlags are the kube-apiserver flags skewcheck gives a node of version v:
//   - the Mixed Version Proxy as mode says, on each node's own command line (not
//     kubeadm's shared extraArgs): on is the gate and the CA peers' serving certificates
//     chain to (the cluster CA); off is the gate false, since it is beta and on by default
//     from 1.36, and no --peer-ca-file, which the apiserver refuses without the gate; as
//     kubeadm is neither, which kubeadm itself never sets;
//   - the user's UID taken from X-Remote-Uid where the apiserver can (1.33+, where
//     RemoteRequestHeaderUID is on by default), as local clusters' do: kubeadm sets every
//     other --requestheader-* flag but this one, and without it a UID is lost on the hop
//     from a front (a sidecar, a gateway, the reference peer proxy) to the apiserver.
func nodeFlags(v string, mode proxyMode) []string {
	var flags []string
	switch mode {
	case proxyOn:
		flags = []string{"--feature-gates=UnknownVersionInteroperabilityProxy=true", "--peer-ca-file=/etc/kubernetes/pki/ca.crt"}
	case proxyOff:
		flags = []string{"--feature-gates=UnknownVersionInteroperabilityProxy=false"}
	}
	if framework.CompareMinor(v, "1.33") >= 0 {
		flags = append(flags, "--requestheader-uid-headers=X-Remote-Uid")
	}
	return flags
}
