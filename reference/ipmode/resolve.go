package ipmode

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Resolve turns a Service and its EndpointSlices into the ports to program. Only TCP ports
// of NodePort and LoadBalancer Services are handled.
func Resolve(svc *corev1.Service, slices []*discoveryv1.EndpointSlice, ignoreIPMode bool) []ServicePort {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer && svc.Spec.Type != corev1.ServiceTypeNodePort {
		return nil
	}
	var shortCircuit []string
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			// The table is IPv4 (family ip): an IPv6 ingress is not this dataplane's.
			if ShortCircuits(ing, ignoreIPMode) && net.ParseIP(ing.IP).To4() != nil {
				shortCircuit = append(shortCircuit, ing.IP)
			}
		}
	}
	var out []ServicePort
	for _, sp := range svc.Spec.Ports {
		if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
			continue
		}
		p := ServicePort{Namespace: svc.Namespace, Name: svc.Name, Port: sp.Name, PortNumber: sp.Port,
			NodePort: sp.NodePort, ShortCircuit: shortCircuit}
		p.Endpoints = readyEndpoints(slices, sp.Name)
		out = append(out, p)
	}
	return out
}

// ShortCircuits is the rule of KEP-1860: a node may send traffic for an ingress IP
// straight to an endpoint unless the ingress says Proxy; an unset ipMode means VIP, and a
// hostname-only ingress has no IP to short-circuit.
func ShortCircuits(ing corev1.LoadBalancerIngress, ignoreIPMode bool) bool {
	if ing.IP == "" {
		return false
	}
	if ignoreIPMode {
		return true
	}
	return ing.IPMode == nil || *ing.IPMode == corev1.LoadBalancerIPModeVIP
}

// readyEndpoints lists the ready IPv4 addresses of the slices for the named port; an
// endpoint whose ready condition is unset counts as ready, as the EndpointSlice API says.
func readyEndpoints(slices []*discoveryv1.EndpointSlice, port string) []Endpoint {
	seen := map[Endpoint]bool{}
	var out []Endpoint
	for _, s := range slices {
		if s.AddressType != discoveryv1.AddressTypeIPv4 {
			continue
		}
		var number int32
		for _, p := range s.Ports {
			if p.Name != nil && *p.Name == port && p.Port != nil {
				number = *p.Port
			}
			if p.Name == nil && port == "" && p.Port != nil {
				number = *p.Port
			}
		}
		if number == 0 {
			continue
		}
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			for _, a := range e.Addresses {
				ep := Endpoint{IP: a, Port: number}
				if !seen[ep] {
					seen[ep] = true
					out = append(out, ep)
				}
			}
		}
	}
	return out
}
