package dataplane

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/netns"
)

// The address plan, all inside the benchmarking range 198.18.0.0/15 and only ever inside
// the topology's namespaces.
const (
	subnetBits   = "/24"
	nodeIP       = "198.18.0.2"
	backend1IP   = "198.18.0.3"
	backend2IP   = "198.18.0.4"
	lbHostIP     = "198.18.0.5"
	clientIP     = "198.18.0.6"
	lbRange      = "198.18.1.0/24"
	lbIPCount    = 16
	backendPort  = 8080
	apiLocalAddr = "127.0.0.1:6443"
)

// lbIP is the i-th load-balancer address (from 198.18.1.10).
func lbIP(i int) string { return fmt.Sprintf("198.18.1.%d", 10+i) }

// topology is the namespaces and their wiring.
type topology struct {
	sw                        *netns.Switch
	node, backend, lb, client *netns.Host
}

// newTopology builds the hosts and wires them. node, when not nil, is the node's namespace
// made elsewhere (a container's: image.go, machine.go); otherwise the node is a namespace
// of its own like the other hosts.
func newTopology(node *netns.Host) (_ *topology, err error) {
	t := &topology{node: node}
	defer func() {
		if err != nil {
			t.close()
		}
	}()
	if t.sw, err = netns.NewSwitch("switch"); err != nil {
		return nil, err
	}
	for _, h := range []struct {
		host **netns.Host
		role string
		ip   string
	}{{&t.node, "node", nodeIP}, {&t.backend, "backend", backend1IP}, {&t.lb, "lb", lbHostIP}, {&t.client, "client", clientIP}} {
		if *h.host == nil {
			if *h.host, err = netns.NewHost(h.role); err != nil {
				return nil, err
			}
		}
		if err = t.sw.Attach(*h.host, h.ip+subnetBits); err != nil {
			return nil, err
		}
	}
	if err = t.backend.AddAddress(t.backend.Link(), backend2IP+subnetBits); err != nil {
		return nil, err
	}
	if err = t.routeBackendThroughNode(); err != nil {
		return nil, err
	}
	for i := 0; i < lbIPCount; i++ {
		if err = t.lb.AddAddress("lo", lbIP(i)+"/32"); err != nil {
			return nil, err
		}
	}
	for _, h := range []*netns.Host{t.node, t.client} {
		if err = h.AddRoute(lbRange, lbHostIP); err != nil {
			return nil, err
		}
	}
	// The node forwards what arrives for a NodePort to a backend on another host.
	if err = t.node.Sysctl("net.ipv4.ip_forward", "1"); err != nil {
		return nil, err
	}
	// What a command runs with inside the node (an Image's container has the same names
	// from its holder's extra hosts).
	if err = t.node.WriteEtc("hosts", nodeHosts()); err != nil {
		return nil, err
	}
	return t, nil
}

// routeBackendThroughNode makes the backend answer the load balancer and the client through
// the node, as a pod does (its only route leads to its node). A dataplane that keeps the
// client's address (externalTrafficPolicy Local does not masquerade) sends the backend a
// connection from the load balancer or the client; were the reply to go to them straight
// over the switch, it would bypass the node's conntrack, which undoes the NAT, and the
// connection would hang. The node, forwarding that reply back out of the interface it came
// in by, tells the backend to go direct (an ICMP redirect): the backend must not listen.
func (t *topology) routeBackendThroughNode() error {
	for _, peer := range []string{lbHostIP, clientIP} {
		if err := t.backend.AddRoute(peer+"/32", nodeIP); err != nil {
			return err
		}
	}
	for _, conf := range []string{"all", t.backend.Link()} {
		if err := t.backend.Sysctl("net.ipv4.conf."+conf+".accept_redirects", "0"); err != nil {
			return err
		}
	}
	return nil
}

// lbHostname is the name that resolves to the i-th load-balancer address on the node.
func lbHostname(i int) string { return fmt.Sprintf("lb-%d.skewcheck.example", i) }

// nodeHosts is the node's /etc/hosts, in which every load-balancer hostname resolves to its
// address: a dataplane that resolved a hostname-only ingress and short-circuited it would
// then be caught.
func nodeHosts() []byte {
	var b strings.Builder
	b.WriteString("127.0.0.1 localhost\n::1 localhost\n")
	for i := 0; i < lbIPCount; i++ {
		fmt.Fprintf(&b, "%s %s\n", lbIP(i), lbHostname(i))
	}
	return []byte(b.String())
}

// lbHostEntries are the same names as Docker's extra hosts ("name:ip").
func lbHostEntries() []string {
	var out []string
	for i := 0; i < lbIPCount; i++ {
		out = append(out, lbHostname(i)+":"+lbIP(i))
	}
	return out
}

func (t *topology) close() error {
	var errs []error
	for _, h := range []*netns.Host{t.client, t.lb, t.backend, t.node} {
		if h != nil {
			errs = append(errs, h.Close())
		}
	}
	if t.sw != nil {
		errs = append(errs, t.sw.Close())
	}
	return errors.Join(errs...)
}
