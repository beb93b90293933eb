package cluster

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/vishvananda/netlink"
)

// HarnessAddress makes address number host of the cluster's network this machine's: it is
// added to the network's bridge, so the harness's own servers listen there (a peer path's
// forwarder, the reference proxies, a gateway) and the containers reach them. The address
// goes when the network is removed, with its bridge.
//
// Packets from the containers arrive at it through the bridge, on this machine's input
// hook, where skewcheck's nftables faults (on output hooks) do not act; those faults act
// on the output hook of each pod's network namespace instead (local.Server.NetNS), as the
// forwarder's faults (refused, reset, blackhole, half-open, latency, bandwidth,
// slow-close) act here.
func (h *Hosts) HarnessAddress(host int) (string, error) {
	ip := h.net.IP(host)
	bridge := "br-" + h.net.ID[:12] // Docker's name for a user-defined network's bridge
	link, err := netlink.LinkByName(bridge)
	if err != nil {
		return "", fmt.Errorf("finding the bridge %s of network %s: %w", bridge, h.net.Name, err)
	}
	addr, _ := netlink.ParseAddr(ip + "/32")
	if err := netlink.AddrAdd(link, addr); err != nil && !errors.Is(err, syscall.EEXIST) {
		return "", fmt.Errorf("adding %s to the bridge %s of network %s: %w (needs root)", ip, bridge, h.net.Name, err)
	}
	return ip, nil
}
