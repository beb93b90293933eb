package framework

import (
	"context"
	"time"
)

// A node is what stands behind an endpoint, as far as a suite may act on it. What it can
// take is what it declares, as the small interfaces below (its capabilities); a fault
// (scenarios/faults) type-asserts the one it acts on and never asks which provider made
// the node, and a node that lacks it gets the fault skipped with the capability named.

// Node is what a suite may do to the server behind an endpoint: control of its process.
// Only targets skewcheck runs itself have one; tests that need it declare
// FeatureNodeControl.
type Node interface {
	Stop(timeout time.Duration) error // graceful: SIGTERM
	Kill() error                      // crash: SIGKILL
	Freeze() error                    // SIGSTOP
	Thaw() error                      // SIGCONT
	Start(ctx context.Context) error  // after Stop or Kill
}

// FeaturePeerPath: the network path from the other servers into each server passes a point
// where the suite can fault it (a local or containers cluster made with peer paths; a kind
// cluster, in its nodes' network namespaces).
var FeaturePeerPath = DeclareFeature("PeerPath", func(t *Target) string {
	if t.Unowned {
		return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a run never faults its network")
	}
	for _, e := range t.Endpoints {
		if n, ok := e.Node.(PeerPathNode); !ok || !n.HasPeerPath() {
			return "the network path into " + e.Name + " cannot be faulted (local and containers clusters made with peer paths, and kind clusters, can: skewcheck chaos, or conformance with the chaos profile)"
		}
	}
	return ""
})

// PeerPathNode is a Node whose incoming traffic from the other servers passes a point the
// suite can fault (scenarios/faults finds it), so network faults hit that traffic only.
type PeerPathNode interface {
	Node
	HasPeerPath() bool
}

// NetNode is a Node whose server is in a network namespace of its own that its peers dial
// at an address of that namespace, from namespaces of their own: a kind node's
// kube-apiserver (host network, in the node's container). Network faults on it are
// nftables rules in the namespaces of the node and of its peers' nodes.
type NetNode interface {
	Node
	Name() string
	// NetNS is the path of the node's network namespace (/proc/<pid>/ns/net).
	NetNS() (string, error)
	// PeerAddress is the ip:port peers dial: the node's address, the apiserver's port.
	PeerAddress() (string, error)
}
