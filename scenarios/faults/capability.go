package faults

import (
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// Capability is what a fault acts on, as the node behind an endpoint declares it: a fault
// type-asserts the interface and never asks which provider made the node. It is a name of
// framework's one vocabulary, so where a test needs what a fault acts on, the two name one
// value; messages say it in its words (Words).
type Capability = framework.Feature

var (
	// Process is control of the server's process: framework.Node (every provider's), the
	// tests' framework.FeatureNodeControl.
	Process = framework.FeatureNodeControl
	// PeerPath is a forwarder of the harness in front of the server's peer address, which
	// every connection from its peers passes and nothing else: PathNode (local and
	// containers clusters made with PeerPaths). A test needs it of a target (the network
	// faults have somewhere to act) where every server has one, or the node's own network
	// namespace (framework.NetNode: kind), which takes the faults' NetNS variants. It is
	// declared here beside the nodes' interfaces, so that the two cannot disagree.
	PeerPath = framework.DeclareFeature("PeerPath", func(t *framework.Target) string {
		if t.Unowned {
			return framework.NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a run never faults its network")
		}
		for _, e := range t.Endpoints {
			if _, net := e.Node.(framework.NetNode); PeerPathOf(e) == nil && !net {
				return "the network path into " + e.Name + " cannot be faulted (local and containers clusters made with peer paths, and kind clusters, can)"
			}
		}
		return ""
	}).Worded("a peer path")
	// PeerSockets are the sockets two apiservers dial each other from, told apart by a
	// network namespace or a cgroup of their own: DialerNode, of the faulted server and of
	// the entry of the load (local and containers clusters, upstream target).
	PeerSockets = framework.DeclareCapability("PeerSockets", "peer sockets")
	// Registration is the target's registrar, able to rewrite a registration's renew time
	// (framework.RenewTimes): upstream's identity leases, or what the target declares; the
	// tests' framework.FeatureRegistration.
	Registration = framework.FeatureRegistration
)

// capabilityChecks say, for each capability, what a subject would need to have it ("" when
// it has it). The capabilities above declare theirs in the init below; a new one declares
// its own in the file that defines it, touching no list of them.
var capabilityChecks = map[Capability]func(Subject) string{}

// declareCapability makes c a capability a fault can act on, with the check of a subject.
func declareCapability(c Capability, lacks func(Subject) string) { capabilityChecks[c] = lacks }

func init() {
	declareCapability(Process, func(s Subject) string {
		if s.endpoint == nil || s.endpoint.Node == nil {
			return "a server skewcheck runs (a local, containers or kind cluster)"
		}
		return ""
	})
	declareCapability(PeerPath, func(s Subject) string {
		if s.path == nil {
			return "a local or containers cluster made with PeerPaths, or for some network faults a kind cluster"
		}
		return ""
	})
	declareCapability(Entry, func(s Subject) string {
		if s.load.Entry == nil {
			return "a load entering by a front skewcheck can dial (chaos.NewRunner gives the route)"
		}
		return ""
	})
	declareCapability(Registration, func(s Subject) string {
		if _, ok := s.registrar.(framework.RenewTimes); !ok || s.endpoint == nil {
			return "the target's registrar (Subject.WithRegistrar) able to rewrite renew times (framework.RenewTimes): upstream's identity leases, or the reference's leases"
		}
		return ""
	})
	declareCapability(PeerSockets, func(s Subject) string {
		if s.server == nil || s.peer == nil {
			return "two apiservers skewcheck runs, told apart by cgroup (processes) or network namespace (containers), the faulted one and the entry of the load; traffic from a proxy inside skewcheck's own process (the reference) cannot be"
		}
		return ""
	})
	for _, c := range []Capability{ServingCert, ProxyClientCert, PeerCAFile} {
		declareCapability(c, func(s Subject) string { return s.lacksCerts(c) })
	}
}

// PathNode is a node whose peers reach its server through a peer path.
type PathNode interface {
	framework.Node
	IncomingPeerPath() *node.PeerPath
}

// DialerNode is a node that is itself an apiserver dialling its peers from sockets of its
// own. A proxy in front of one (a sidecar, the reference) is not: its peer traffic leaves
// from the proxy.
type DialerNode interface {
	framework.Node
	PeerDialer() *node.Dialer
}

// Missing is the error of a fault whose subject's node does not declare what the fault
// acts on: the caller skips the fault, naming the capability; it does not fail.
type Missing struct {
	Fault      string
	Capability Capability
	// At is the endpoint the fault was for; Why says what would have the capability.
	At, Why string
}

func (m *Missing) Error() string {
	at := "the subject"
	if m.At != "" {
		at = m.At
	}
	return fmt.Sprintf("fault %s acts on %s, which %s does not have: %s", m.Fault, m.Capability.Words(), at, m.Why)
}

// PeerPathOf is the peer path into the server behind an endpoint (the apiserver's own, or
// the one behind a sidecar), or nil.
func PeerPathOf(e *framework.Endpoint) *node.PeerPath {
	if e == nil {
		return nil
	}
	if n, ok := e.Node.(PathNode); ok {
		return n.IncomingPeerPath()
	}
	return nil
}

// dialerOf is the apiserver behind e when it dials its peers itself, or nil.
func dialerOf(e *framework.Endpoint) *node.Dialer {
	if e == nil {
		return nil
	}
	if n, ok := e.Node.(DialerNode); ok {
		return n.PeerDialer()
	}
	return nil
}
