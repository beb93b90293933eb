package netns

import (
	"fmt"

	"github.com/vishvananda/netlink"
)

// Switch is a bridge in a namespace of its own that hosts plug into: the topology's one
// layer-2 network.
type Switch struct {
	host   *Host
	bridge netlink.Link
	ports  int
}

// NewSwitch makes the switch's namespace and its bridge.
func NewSwitch(role string) (*Switch, error) {
	h, err := NewHost(role)
	if err != nil {
		return nil, err
	}
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: "br0"}}
	if err := h.nl.LinkAdd(br); err != nil {
		h.Close()
		return nil, fmt.Errorf("%s: creating bridge: %w", h.Name, err)
	}
	if err := h.linkUp("br0"); err != nil {
		h.Close()
		return nil, err
	}
	return &Switch{host: h, bridge: br}, nil
}

// Attach plugs host into the switch with a veth pair: an interface on the host (Link),
// with address cidr, and a bridge port on the switch.
func (s *Switch) Attach(h *Host, cidr string) error {
	s.ports++
	port := fmt.Sprintf("port%d", s.ports)
	// eth0, unless the host has one already: an adopted namespace (a kind node) has its
	// container network's.
	h.link = "eth0"
	if _, err := h.nl.LinkByName(h.link); err == nil {
		h.link = "skewcheck0"
	}
	veth := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: port, MasterIndex: s.bridge.Attrs().Index},
		PeerName:      h.link,
		PeerNamespace: netlink.NsFd(int(h.ns)),
	}
	if err := s.host.nl.LinkAdd(veth); err != nil {
		return fmt.Errorf("connecting %s to the switch: %w", h.Name, err)
	}
	if err := s.host.linkUp(port); err != nil {
		return err
	}
	if err := h.AddAddress(h.link, cidr); err != nil {
		return err
	}
	return h.linkUp(h.link)
}

// Link is the host's interface on the switch it was attached to.
func (h *Host) Link() string { return h.link }

// Close deletes the switch and with it every bridge port.
func (s *Switch) Close() error { return s.host.Close() }
