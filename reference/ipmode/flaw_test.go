package ipmode

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/knftables"
)

func TestParseFlaw(t *testing.T) {
	for _, f := range append(Flaws(), NoFlaw) {
		if got, err := ParseFlaw(string(f)); err != nil || got != f {
			t.Errorf("ParseFlaw(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFlaw("nosuch"); err == nil || !strings.Contains(err.Error(), string(FlawResolveHostnames)) {
		t.Errorf("an unknown flaw should be refused naming the flaws; got %v", err)
	}
}

// bent is the ports of LoadBalancer default/web with one endpoint and ing, as the dataplane
// with flaw programs them; lookup resolves every hostname to 203.0.113.9.
func bent(flaw Flaw, ing ...corev1.LoadBalancerIngress) []ServicePort {
	svc := service(corev1.ServiceTypeLoadBalancer, httpPort(), ing...)
	s := slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1"))
	lookup := func(string) []string { return []string{"203.0.113.9"} }
	return flaw.bend(svc, Resolve(svc, []*discoveryv1.EndpointSlice{s}, false), lookup)
}

// FlawNeverShortCircuit short-circuits no ingress IP, VIP or unset (IPM-101 and IPM-102
// must catch it); FlawResolveHostnames short-circuits what a hostname-only ingress
// resolves to (IPM-106 must catch it), which the reference never looks up.
func TestFlawShortCircuits(t *testing.T) {
	hostname := corev1.LoadBalancerIngress{Hostname: "lb.example.com"}
	for _, tc := range []struct {
		flaw Flaw
		ing  []corev1.LoadBalancerIngress
		want []string
	}{
		{NoFlaw, []corev1.LoadBalancerIngress{ingress("203.0.113.1", vip), ingress("203.0.113.2", nil)}, []string{"203.0.113.1", "203.0.113.2"}},
		{FlawNeverShortCircuit, []corev1.LoadBalancerIngress{ingress("203.0.113.1", vip), ingress("203.0.113.2", nil)}, nil},
		{NoFlaw, []corev1.LoadBalancerIngress{hostname}, nil},
		{FlawResolveHostnames, []corev1.LoadBalancerIngress{hostname}, []string{"203.0.113.9"}},
		{FlawResolveHostnames, []corev1.LoadBalancerIngress{ingress("203.0.113.1", proxy), hostname}, []string{"203.0.113.9"}},
	} {
		ports := bent(tc.flaw, tc.ing...)
		if len(ports) != 1 || !slices.Equal(ports[0].ShortCircuit, tc.want) {
			t.Errorf("%q with %+v: %+v, want one port short-circuiting %q", tc.flaw, tc.ing, ports, tc.want)
		}
	}
}

// FlawCloseNodePort keeps the NodePort of a short-circuited Service to traffic the node
// sends itself (IPM-104 must catch it); that of a Proxy one stays open to every client.
func TestFlawCloseNodePort(t *testing.T) {
	for _, tc := range []struct {
		flaw Flaw
		mode *corev1.LoadBalancerIPMode
		want string
	}{
		{NoFlaw, vip, "ip daddr " + nodeIP + " tcp dport 30080 jump svc-default/web/http"},
		{FlawCloseNodePort, vip, "ip daddr " + nodeIP + " tcp dport 30080 fib saddr type local jump svc-default/web/http"},
		{FlawCloseNodePort, proxy, "ip daddr " + nodeIP + " tcp dport 30080 jump svc-default/web/http"},
	} {
		fake := knftables.NewFake(knftables.IPv4Family, Table)
		program(t, fake, bent(tc.flaw, ingress("203.0.113.1", tc.mode)))
		if got := rules(t, fake, "services"); !slices.Contains(got, tc.want) {
			t.Errorf("%q, ipMode %s: chain services has %q, want %q", tc.flaw, *tc.mode, got, tc.want)
		}
	}
}
