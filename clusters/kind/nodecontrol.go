package kind

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
)

// Where a node's kube-apiserver static pod is, and where it waits while stopped.
const (
	apiserverManifest = "/etc/kubernetes/manifests/kube-apiserver.yaml"
	stoppedManifest   = "/kind/skewcheck/kube-apiserver.yaml.stopped"
)

// nodeServer controls the kube-apiserver of one kind node through the node's own tools:
// signals to its process (the node's PID namespace holds its containers' processes) for a
// crash or a freeze, and the static pod's manifest, which the kubelet watches, for a
// graceful stop and a start. It implements framework.Node.
type nodeServer struct {
	node nodes.Node
	// ready answers whether the apiserver answers /readyz with 200 (from this machine,
	// through the node's published port), so Start returns a server that serves, as a
	// local server's Start does.
	ready func(ctx context.Context) bool
	mu    sync.Mutex
	down  bool // stopped or killed: its manifest is put aside
}

// startBound is how long Start waits for the kubelet to run the apiserver again and for
// it to be ready; a loaded machine running three kind clusters at once has needed a
// minute.
const startBound = 3 * time.Minute

func (n *nodeServer) sh(script string) (string, error) {
	out, err := nodeSh(n.node, script)
	return strings.TrimSpace(out), err
}

// Stop is graceful: the manifest is put aside and the kubelet stops the pod (SIGTERM, as a
// kubeadm upgrade does), so the server removes its identity lease.
func (n *nodeServer) Stop(timeout time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.down {
		return nil
	}
	// a frozen process cannot act on SIGTERM
	if _, err := n.sh("pkill -CONT -x kube-apiserver; mv " + apiserverManifest + " " + stoppedManifest); err != nil {
		return err
	}
	n.down = true
	if err := n.waitGone(timeout); err != nil {
		n.sh("pkill -KILL -x kube-apiserver")
		return fmt.Errorf("kube-apiserver in %s did not stop within %v of SIGTERM and was killed", n.node, timeout)
	}
	return nil
}

// Kill is a crash: the process is frozen (so the kubelet's SIGTERM, once the manifest is
// put aside, can never run its shutdown), then SIGKILLed. Its identity lease stays behind.
func (n *nodeServer) Kill() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.down {
		return nil
	}
	if _, err := n.sh("pkill -STOP -x kube-apiserver && mv " + apiserverManifest + " " + stoppedManifest + " && pkill -KILL -x kube-apiserver"); err != nil {
		return err
	}
	n.down = true
	return n.waitGone(30 * time.Second)
}

// Freeze stops the process where it is (SIGSTOP): connections stay open, nothing answers.
// The node's kube-apiserver has no liveness probe (clusterPatches), so the kubelet does not
// restart it while it is frozen, as nothing restarts a frozen local server.
func (n *nodeServer) Freeze() error {
	_, err := n.sh("pkill -STOP -x kube-apiserver")
	return err
}

// Thaw lets a frozen process go on (SIGCONT).
func (n *nodeServer) Thaw() error {
	_, err := n.sh("pkill -CONT -x kube-apiserver")
	return err
}

// Start puts the manifest back; the kubelet starts the static pod again. It returns once
// the apiserver answers /readyz, so what starts in front of it (a sidecar that must reach
// it to register) finds it serving.
func (n *nodeServer) Start(ctx context.Context) error {
	if err := n.putBack(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startBound)
	defer cancel()
	for !n.ready(ctx) {
		select {
		case <-ctx.Done():
			running := "is not running"
			if _, err := n.sh("pgrep -x kube-apiserver"); err == nil {
				running = "runs but did not answer /readyz with 200"
			}
			return fmt.Errorf("kube-apiserver in %s %s within %v of putting its manifest back (%v); its log: docker exec %s crictl logs $(docker exec %s crictl ps -q --name kube-apiserver)",
				n.node, running, startBound, ctx.Err(), n.node, n.node)
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

// putBack moves the manifest back where the kubelet watches it.
func (n *nodeServer) putBack() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.down {
		return fmt.Errorf("kube-apiserver in %s is running: stop it before starting it again", n.node)
	}
	if _, err := n.sh("mv " + stoppedManifest + " " + apiserverManifest); err != nil {
		return err
	}
	n.down = false
	return nil
}

func (n *nodeServer) running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.down
}

func (n *nodeServer) waitGone(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := n.sh("pgrep -x kube-apiserver"); err != nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("still running after %v", timeout)
}

// Name is the node's name, for the faults' descriptions.
func (n *nodeServer) Name() string { return n.node.String() }

// NetNS is the node's network namespace, by its container's process: the apiserver and
// every other component of the node run in it (host network).
func (n *nodeServer) NetNS() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := connect(ctx)
	if err != nil {
		return "", err
	}
	defer e.close()
	pid, err := e.pid(ctx, n.node.String())
	if err != nil {
		return "", fmt.Errorf("no network namespace to fault: %w", err)
	}
	return fmt.Sprintf("/proc/%d/ns/net", pid), nil
}

// PeerAddress is the node's address on the cluster's network and the apiserver's port:
// kubeadm advertises the node's address, so that is what the peers dial.
func (n *nodeServer) PeerAddress() (string, error) {
	ip, _, err := n.node.IP()
	if err != nil || ip == "" {
		return "", fmt.Errorf("finding the address of node %s: %v", n.node, err)
	}
	return net.JoinHostPort(ip, fmt.Sprint(apiserverPort)), nil
}
