package faults

import (
	"fmt"
	"net"
	"strings"

	"sigs.k8s.io/knftables"

	"github.com/skewcheck/skewcheck/framework"
)

// netTarget is a NetNode as the rules of a fault on it are written: only packets between
// the node's apiserver port and its peers' nodes match, so its own components (they dial
// it inside the node), kind's load balancer and the suites' clients (published ports, in
// this machine's namespace, where no rule goes) are not touched.
type netTarget struct {
	at    string   // the node and its peer address, for descriptions
	ns    string   // its network namespace
	peers []string // its peers' namespaces
	entry string   // the entry of the load (the exact partitions cut it from that one only)
	// in matches its peers' packets to it; out its answers to them; toPeers drops its own
	// dials to its peers' apiservers.
	in, out string
	toPeers []string
}

// onNetNode makes kind k on the NetNode n behind s.endpoint, whose peers are the other
// NetNodes among s.cluster (for a fault on peer sockets, the entry's only).
func onNetNode(k Kind, s Subject, n framework.NetNode) (Fault, error) {
	ns, addr, err := netNodeAt(n)
	if err != nil {
		return nil, err
	}
	t := netTarget{ns: ns, at: n.Name() + " (" + addr + ")"}
	cluster := s.cluster
	if k.On == PeerSockets {
		if s.entry == nil || s.entry.Node == n {
			return nil, fmt.Errorf("fault %s on %s: name the entry of the load, a node other than the faulted one, to cut it from", k.Name, s.at())
		}
		cluster, t.entry = []*framework.Endpoint{s.entry}, s.entry.Name
	}
	var peerIPs []string
	for _, e := range cluster {
		p, ok := e.Node.(framework.NetNode)
		if !ok || p == n {
			continue
		}
		pns, paddr, err := netNodeAt(p)
		if err != nil {
			return nil, err
		}
		ip, port, _ := net.SplitHostPort(paddr)
		t.peers, peerIPs = append(t.peers, pns), append(peerIPs, ip)
		t.toPeers = append(t.toPeers, knftables.Concat("ip daddr", ip, "tcp dport", port, "drop"))
	}
	if len(t.peers) == 0 {
		return nil, fmt.Errorf("fault %s on %s: no other node to fault its peer traffic from", k.Name, s.at())
	}
	host, port, _ := net.SplitHostPort(addr)
	t.in = knftables.Concat("ip daddr", host, "tcp dport", port)
	t.out = knftables.Concat("ip saddr", host, "tcp sport", port, "ip daddr", "{", strings.Join(peerIPs, ", "), "}")
	f := &packets{name: k.Name}
	f.what, f.places = k.OnNetNS(t)
	return f, nil
}

func netLoss(t netTarget) (string, []place) {
	return "30% of the packets from its peers' nodes to " + t.at + " dropped (nftables)", each(t.peers, t.in+" numgen random mod 100 < 30 drop")
}

func netPartitionOneWay(t netTarget) (string, []place) {
	return "packets from its peers' nodes to " + t.at + " dropped (nftables)", each(t.peers, t.in+" drop")
}

func netPartitionPairOneWay(t netTarget) (string, []place) {
	return "packets from the entry's node " + t.entry + " to " + t.at + " dropped, its other peers untouched (nftables)", each(t.peers, t.in+" drop")
}

// netPartition: nothing from its peers' nodes reaches it, and its own dials to their
// apiservers (its peer proxy's) are dropped where they leave.
func netPartition(t netTarget) (string, []place) {
	return "packets between " + t.at + " and its peers' apiservers dropped both ways (nftables)",
		append(each(t.peers, t.in+" drop"), place{ns: t.ns, rules: t.toPeers})
}

func netPartitionPair(t netTarget) (string, []place) {
	return "packets between " + t.at + " and the entry's node " + t.entry + " dropped both ways, its other peers untouched (nftables)",
		append(each(t.peers, t.in+" drop"), place{ns: t.ns, rules: t.toPeers})
}

// netHalfOpen: requests arrive; the answers are dropped where they leave, in its own node.
func netHalfOpen(t netTarget) (string, []place) {
	return "requests reach " + t.at + ", its answers to its peers' nodes are dropped (nftables)", each([]string{t.ns}, t.out+" drop")
}

// netBlackhole: connections already open stay open and carry nothing; new ones never open.
func netBlackhole(t netTarget) (string, []place) {
	return "nothing passes between " + t.at + " and its peers' nodes, either way (nftables)",
		append(each(t.peers, t.in+" drop"), each([]string{t.ns}, t.out+" drop")...)
}

// netRefused: as a closed listener, peers' connections are reset at once.
func netRefused(t netTarget) (string, []place) {
	return "connections from its peers' nodes to " + t.at + " reset (nftables)", each(t.peers, t.in+" reject with tcp reset")
}

// each is the same rule in each of the namespaces.
func each(namespaces []string, rule string) []place {
	var out []place
	for _, ns := range namespaces {
		out = append(out, place{ns: ns, rules: []string{rule}})
	}
	return out
}

func netNodeAt(n framework.NetNode) (ns, addr string, err error) {
	if ns, err = n.NetNS(); err != nil {
		return "", "", err
	}
	if addr, err = n.PeerAddress(); err != nil {
		return "", "", err
	}
	return ns, addr, nil
}
