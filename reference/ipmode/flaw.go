package ipmode

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Flaw makes the reference wrong in one deliberate way, so that the ipmode profile can be
// shown to catch it: the mutation matrix runs each (docs/mutation.md). A real dataplane
// runs with NoFlaw. Config.IgnoreIPMode, older, is one more such variant.
type Flaw string

const (
	NoFlaw Flaw = ""
	// FlawNeverShortCircuit short-circuits no ingress IP, VIP or unset alike: traffic from
	// the node to a load-balancer IP always goes out to the load balancer, as a dataplane
	// that leaves load-balancer IPs to the cloud does. IPM-101 and IPM-102 must catch it
	// (an ingress written with only ip reaches a dataplane defaulted to VIP, so no
	// dataplane can fail IPM-102 alone).
	FlawNeverShortCircuit Flaw = "never-short-circuiting"
	// FlawCloseNodePort serves the NodePort of a Service whose ingress IP it short-circuits
	// to the node's own traffic only, as if clients outside the node reached such a
	// Service by its load-balancer IP alone: a client sent to the NodePort, and the load
	// balancer, which forwards to it, are refused. IPM-104 must catch it.
	FlawCloseNodePort Flaw = "closing-nodeport"
	// FlawResolveHostnames resolves a hostname-only ingress on the node and short-circuits
	// the addresses it resolves to, as if they were ingress IPs: traffic meant for the load
	// balancer (its TLS, PROXY protocol, health checks) bypasses it, although KEP-1860
	// gives a hostname nothing to short-circuit. IPM-106 must catch it.
	FlawResolveHostnames Flaw = "resolving-hostnames"
)

// flaws is every flaw, in the order they were added: the registry the reference
// dataplane's variants (clusters/dataplane.ReferenceFlawed), and so `skewcheck
// mutation`, read.
var flaws = []Flaw{FlawNeverShortCircuit, FlawCloseNodePort, FlawResolveHostnames}

// Flaws lists every deliberate flaw, NoFlaw aside.
func Flaws() []Flaw { return slices.Clone(flaws) }

// ParseFlaw reads a flaw's name (see Flaws); "" is NoFlaw.
func ParseFlaw(name string) (Flaw, error) {
	if name == "" || slices.Contains(flaws, Flaw(name)) {
		return Flaw(name), nil
	}
	var names []string
	for _, f := range flaws {
		names = append(names, string(f))
	}
	return NoFlaw, fmt.Errorf("unknown reference dataplane flaw %q: the flaws are %s", name, strings.Join(names, ", "))
}

// bend changes a Service's resolved ports the way the flaw says; lookup resolves a
// hostname to its IPv4 addresses (only FlawResolveHostnames calls it).
func (f Flaw) bend(svc *corev1.Service, ports []ServicePort, lookup func(host string) []string) []ServicePort {
	switch f {
	case FlawNeverShortCircuit:
		for i := range ports {
			ports[i].ShortCircuit = nil
		}
	case FlawCloseNodePort:
		for i := range ports {
			ports[i].nodeOnly = len(ports[i].ShortCircuit) > 0
		}
	case FlawResolveHostnames:
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
			return ports
		}
		var resolved []string
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP == "" && ing.Hostname != "" {
				resolved = append(resolved, lookup(ing.Hostname)...)
			}
		}
		for i := range ports {
			// The ports share one ShortCircuit slice: append to a copy.
			ports[i].ShortCircuit = append(slices.Clone(ports[i].ShortCircuit), resolved...)
		}
	}
	return ports
}

// lookupIPv4 resolves host as the node does (its /etc/hosts, then DNS), IPv4 only; an
// error resolves to nothing.
func lookupIPv4(host string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIP(ctx, "ip4", host)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range addrs {
		out = append(out, a.String())
	}
	return out
}
