package containers

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// Network is a user-defined bridge network of this run: each container on it has its own
// address and its own name in Docker's DNS, and this machine reaches every address through
// the bridge.
type Network struct {
	rt     *Runtime
	ID     string
	Name   string
	prefix string // the first three octets of the /24
}

// subnetBase and subnetTries: networks take 10.177.N.0/24, the first N Docker accepts
// (it refuses a subnet that overlaps another network's, another run's among them).
const (
	subnetBase  = "10.177."
	subnetTries = 250
)

// CreateNetwork makes the network skewcheck-<pid>-<name> on a free /24.
func (r *Runtime) CreateNetwork(ctx context.Context, name string) (*Network, error) {
	full := ContainerName(name)
	// Docker accepts a second network of a name already taken; containers attached by
	// that name would then land on either.
	existing, err := r.client().NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("name", full)})
	if err != nil {
		return nil, fmt.Errorf("listing Docker networks: %w", err)
	}
	for _, n := range existing.Items {
		if n.Name == full {
			return nil, fmt.Errorf("creating Docker network %s: the name is taken by network %.12s, which skewcheck did not make in this run "+
				"(remove it with docker network rm %s if nothing needs it)", full, n.ID, full)
		}
	}
	var lastErr error
	for n := 1; n <= subnetTries; n++ {
		prefix := fmt.Sprintf("%s%d", subnetBase, n)
		subnet := netip.MustParsePrefix(prefix + ".0/24")
		res, err := r.client().NetworkCreate(ctx, full, client.NetworkCreateOptions{Driver: "bridge", Labels: ownerLabels(),
			IPAM: &network.IPAM{Config: []network.IPAMConfig{{Subnet: subnet, Gateway: netip.MustParseAddr(prefix + ".1")}}}})
		if err == nil {
			return &Network{rt: r, ID: res.ID, Name: full, prefix: prefix}, nil
		}
		lastErr = err
		if !strings.Contains(err.Error(), "overlap") {
			break
		}
	}
	return nil, fmt.Errorf("creating Docker network %s on a /24 of %s0.0/16: %w (remove unused networks with docker network prune)", full, subnetBase, lastErr)
}

// IP is the address of host number host (2 to 254; .1 is this machine's end of the bridge).
func (n *Network) IP(host int) string { return fmt.Sprintf("%s.%d", n.prefix, host) }

// Remove deletes the network; its containers must be gone.
func (n *Network) Remove() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := n.rt.client().NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{}); err != nil {
		return fmt.Errorf("removing network %s: %w (docker network rm %s)", n.Name, err, n.Name)
	}
	return nil
}

// Disconnect cuts a container off the network (a partition); Connect puts it back at the
// same address and names.
func (n *Network) Disconnect(ctx context.Context, c *Container) error {
	if _, err := n.rt.client().NetworkDisconnect(ctx, n.ID, client.NetworkDisconnectOptions{Container: c.ID(), Force: true}); err != nil {
		return fmt.Errorf("disconnecting %s from network %s: %w", c.Name, n.Name, err)
	}
	return nil
}

func (n *Network) Connect(ctx context.Context, c *Container, ip string, aliases []string) error {
	_, err := n.rt.client().NetworkConnect(ctx, n.ID, client.NetworkConnectOptions{Container: c.ID(),
		EndpointConfig: &network.EndpointSettings{Aliases: aliases, IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: netip.MustParseAddr(ip)}}})
	if err != nil {
		return fmt.Errorf("connecting %s to network %s at %s: %w", c.Name, n.Name, ip, err)
	}
	return nil
}
