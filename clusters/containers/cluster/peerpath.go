package cluster

import (
	"fmt"

	"github.com/vishvananda/netlink"
)

// PeerPathAddress gives server i's peer path an address of the cluster's network that
// this machine owns: .(40+i) is added to the network's bridge, where the harness's
// forwarder listens (local.PeerPath), so peers reach the server through it and network
// faults act on it. The address goes when the network is removed (with its bridge).
//
// Packets from the containers arrive at it through the bridge, on the input hook, where
// skewcheck's nftables faults (on the output hook, made for loopback) do not act: the
// forwarder's faults (refused, reset, blackhole, half-open, latency, bandwidth,
// slow-close) do.
func (h *Hosts) PeerPathAddress(i, port int) (string, error) {
	ip := h.net.IP(40 + i + 1)
	bridge := "br-" + h.net.ID[:12] // Docker's name for a user-defined bridge
	link, err := netlink.LinkByName(bridge)
	if err != nil {
		return "", fmt.Errorf("finding the bridge %s of network %s: %w", bridge, h.net.Name, err)
	}
	addr, _ := netlink.ParseAddr(ip + "/32")
	if err := netlink.AddrAdd(link, addr); err != nil {
		return "", fmt.Errorf("adding %s to the bridge %s of network %s: %w (needs root)", ip, bridge, h.net.Name, err)
	}
	return fmt.Sprintf("%s:%d", ip, port), nil
}
