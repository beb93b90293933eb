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
