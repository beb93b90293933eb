package netns

import (
	"fmt"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// Adopt makes a Host of the network namespace process pid lives in: a container's, which
// the container engine made and will delete. The topology wires it like any host; Close
// releases skewcheck's handles only (no name was made, nothing inside is killed: removing
// the container does both).
func Adopt(name string, pid int) (*Host, error) {
	ns, err := netns.GetFromPid(pid)
	if err != nil {
		return nil, fmt.Errorf("opening the network namespace of pid %d (%s): %w", pid, name, err)
	}
	h := &Host{Name: name, ns: ns, adopted: true}
	if h.nl, err = netlink.NewHandleAt(ns); err != nil {
		ns.Close()
		return nil, fmt.Errorf("opening netlink in the network namespace of %s: %w", name, err)
	}
	if err := h.linkUp("lo"); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}
