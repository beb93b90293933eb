package faults

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"sigs.k8s.io/knftables"

	"github.com/skewcheck/skewcheck/framework"
)

// NetNode is a server in a network namespace of its own that its peers dial at an address
// of that namespace, from namespaces of their own: a kind node's kube-apiserver (host
// network, in the node's container). Network faults on it are nftables rules in the
// namespaces of the node and of its peers' nodes, never in this machine's, through which
// the suites' own clients reach the nodes (published ports).
type NetNode interface {
	framework.Node
	Name() string
	// NetNS is the path of the node's network namespace (/proc/<pid>/ns/net).
	NetNS() (string, error)
	// PeerAddress is the ip:port peers dial: the node's address, the apiserver's port.
	PeerAddress() (string, error)
}

// NetNodeFaults are the network faults a NetNode takes.
var NetNodeFaults = []string{"blackhole", "half-open", "loss", "partition", "partition-one-way", "partition-pair", "partition-pair-one-way", "refused"}

// onNetNode makes the named network fault on the NetNode behind s.Endpoint, whose peers
// are the other NetNodes among s.Cluster. Only packets between the node's apiserver port
// and its peers' nodes match: its own components (they dial it inside the node), kind's
// load balancer and the suites' clients are not touched.
func onNetNode(name string, s Subject) (Fault, error) {
	if !slices.Contains(NetNodeFaults, name) {
		return nil, fmt.Errorf("fault %s needs a peer path (a local cluster made with PeerPaths); on %s the network faults are %s", name, s.Endpoint.Name, strings.Join(NetNodeFaults, ", "))
	}
	target := s.Endpoint.Node.(NetNode)
	ns, addr, err := netNodeAt(target)
	if err != nil {
		return nil, err
	}
	// An exact partition cuts the node from the entry's node only; the other faults from
	// every peer's.
	cluster := s.Cluster
	if strings.HasPrefix(name, "partition-pair") {
		if s.Entry == nil || s.Entry.Node == target {
			return nil, fmt.Errorf("fault %s on %s: name the entry of the load, a node other than the faulted one, to cut it from", name, s.Endpoint.Name)
		}
		cluster = []*framework.Endpoint{s.Entry}
	}
	var peers, peerIPs, toPeers []string
	for _, e := range cluster {
		n, ok := e.Node.(NetNode)
		if !ok || n == target {
			continue
		}
		pns, paddr, err := netNodeAt(n)
		if err != nil {
			return nil, err
		}
		ip, port, _ := net.SplitHostPort(paddr)
		peers, peerIPs = append(peers, pns), append(peerIPs, ip)
		toPeers = append(toPeers, knftables.Concat("ip daddr", ip, "tcp dport", port, "drop"))
	}
	if len(peers) == 0 {
		return nil, fmt.Errorf("fault %s on %s: no other node to fault its peer traffic from", name, s.Endpoint.Name)
	}
	host, port, _ := net.SplitHostPort(addr)
	in := knftables.Concat("ip daddr", host, "tcp dport", port)                                                     // peers' packets to it
	out := knftables.Concat("ip saddr", host, "tcp sport", port, "ip daddr", "{", strings.Join(peerIPs, ", "), "}") // its answers to them
	at := target.Name() + " (" + addr + ")"
	f := &packets{name: name}
	switch name {
	case "loss":
		f.what, f.places = "30% of the packets from its peers' nodes to "+at+" dropped (nftables)", each(peers, in+" numgen random mod 100 < 30 drop")
	case "partition-one-way":
		f.what, f.places = "packets from its peers' nodes to "+at+" dropped (nftables)", each(peers, in+" drop")
	case "partition-pair-one-way":
		f.what, f.places = "packets from the entry's node "+s.Entry.Name+" to "+at+" dropped, its other peers untouched (nftables)", each(peers, in+" drop")
	case "partition":
		// Both ways: nothing from its peers' nodes reaches it, and its own dials to their
		// apiservers (its peer proxy's) are dropped where they leave.
		f.what, f.places = "packets between "+at+" and its peers' apiservers dropped both ways (nftables)", append(each(peers, in+" drop"), place{ns: ns, rules: toPeers})
	case "partition-pair":
		f.what, f.places = "packets between "+at+" and the entry's node "+s.Entry.Name+" dropped both ways, its other peers untouched (nftables)", append(each(peers, in+" drop"), place{ns: ns, rules: toPeers})
	case "half-open":
		// Requests arrive; the answers are dropped where they leave, in its own node.
		f.what, f.places = "requests reach "+at+", its answers to its peers' nodes are dropped (nftables)", each([]string{ns}, out+" drop")
	case "blackhole":
		// Connections already open stay open and carry nothing; new ones never open.
		f.what, f.places = "nothing passes between "+at+" and its peers' nodes, either way (nftables)", append(each(peers, in+" drop"), each([]string{ns}, out+" drop")...)
	case "refused":
		// As a closed listener: peers' connections are reset at once.
		f.what, f.places = "connections from its peers' nodes to "+at+" reset (nftables)", each(peers, in+" reject with tcp reset")
	}
	return f, nil
}

// each is the same rule in each of the namespaces.
func each(namespaces []string, rule string) []place {
	var out []place
	for _, ns := range namespaces {
		out = append(out, place{ns: ns, rules: []string{rule}})
	}
	return out
}

func netNodeAt(n NetNode) (ns, addr string, err error) {
	if ns, err = n.NetNS(); err != nil {
		return "", "", err
	}
	if addr, err = n.PeerAddress(); err != nil {
		return "", "", err
	}
	return ns, addr, nil
}
