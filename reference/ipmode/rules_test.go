package ipmode

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/knftables"
)

const nodeIP = "192.0.2.10"

// program runs one Ruleset sync against fake and fails the test if the transaction is refused.
func program(t *testing.T, fake *knftables.Fake, ports []ServicePort) {
	t.Helper()
	tx := fake.NewTransaction()
	Ruleset(tx, nodeIP, ports)
	if err := fake.Run(context.Background(), tx); err != nil {
		t.Fatalf("running the transaction: %v\n%s", err, tx)
	}
}

// rules lists the rule texts of one chain; it fails the test if the chain is missing.
func rules(t *testing.T, fake *knftables.Fake, chain string) []string {
	t.Helper()
	ch := fake.Table.Chains[chain]
	if ch == nil {
		t.Fatalf("no chain %q in\n%s", chain, fake.Dump())
	}
	var out []string
	for _, r := range ch.Rules {
		out = append(out, r.Rule)
	}
	return out
}

// loadBalancer is the port of a LoadBalancer Service default/web with one endpoint and
// the given ingress entries, resolved the way the dataplane does it.
func loadBalancer(t *testing.T, ing ...corev1.LoadBalancerIngress) ServicePort {
	t.Helper()
	s := slice(discoveryv1.AddressTypeIPv4, "http", 8080, endpoint(nil, "10.0.0.1"))
	ports := Resolve(service(corev1.ServiceTypeLoadBalancer, httpPort(), ing...), []*discoveryv1.EndpointSlice{s}, false)
	if len(ports) != 1 {
		t.Fatalf("Resolve = %+v, want one port", ports)
	}
	return ports[0]
}

func TestRulesetJumpsFromVIPIngressToServiceChain(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, []ServicePort{loadBalancer(t, ingress("203.0.113.1", vip))})
	want := "ip daddr 203.0.113.1 tcp dport 80 jump svc-default/web/http"
	if got := rules(t, fake, "services"); !slices.Contains(got, want) {
		t.Errorf("chain services has %q, want a rule %q", got, want)
	}
	if fake.Table.Chains["svc-default/web/http"] == nil {
		t.Errorf("no service chain svc-default/web/http")
	}
}

func TestRulesetLeavesProxyIngressToTheLoadBalancer(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, []ServicePort{loadBalancer(t, ingress("203.0.113.2", proxy))})
	if dump := fake.Dump(); strings.Contains(dump, "203.0.113.2") {
		t.Errorf("the Proxy ingress IP is programmed:\n%s", dump)
	}
	// The NodePort of the same Service is still served.
	want := "ip daddr " + nodeIP + " tcp dport 30080 jump svc-default/web/http"
	if got := rules(t, fake, "services"); !slices.Equal(got, []string{want}) {
		t.Errorf("chain services has %q, want only %q", got, want)
	}
}

func TestRulesetServesNodePortOnNodeIP(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	p := ServicePort{Namespace: "default", Name: "web", Port: "http", PortNumber: 80, NodePort: 30080,
		Endpoints: []Endpoint{{IP: "10.0.0.1", Port: 8080}}}
	program(t, fake, []ServicePort{p})
	want := "ip daddr " + nodeIP + " tcp dport 30080 jump svc-default/web/http"
	if got := rules(t, fake, "services"); !slices.Equal(got, []string{want}) {
		t.Errorf("chain services has %q, want only %q", got, want)
	}
}

func TestRulesetSkipsPortWithoutEndpoints(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	p := ServicePort{Namespace: "default", Name: "web", Port: "http", PortNumber: 80, NodePort: 30080,
		ShortCircuit: []string{"203.0.113.1"}}
	program(t, fake, []ServicePort{p})
	if fake.Table.Chains["svc-default/web/http"] != nil {
		t.Errorf("a chain was made for a port with no endpoints")
	}
	if got := rules(t, fake, "services"); len(got) != 0 {
		t.Errorf("chain services has %q, want no rules", got)
	}
}

func TestRulesetEndpointChainDNATsAndMarksForMasquerade(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, []ServicePort{loadBalancer(t, ingress("203.0.113.1", vip))})
	want := []string{"meta mark set meta mark | 0x4000 meta l4proto tcp dnat to 10.0.0.1:8080"}
	if got := rules(t, fake, "ep-10.0.0.1/8080"); !slices.Equal(got, want) {
		t.Errorf("endpoint chain has %q, want %q", got, want)
	}
	if got, want := rules(t, fake, "svc-default/web/http"), []string{"numgen random mod 1 vmap { 0 : goto ep-10.0.0.1/8080 }"}; !slices.Equal(got, want) {
		t.Errorf("service chain has %q, want %q", got, want)
	}
	if got, want := rules(t, fake, "postrouting"), []string{"meta mark & 0x4000 == 0x4000 masquerade"}; !slices.Equal(got, want) {
		t.Errorf("postrouting has %q, want %q", got, want)
	}
	for _, hook := range []string{"prerouting", "output"} {
		if got := rules(t, fake, hook); !slices.Equal(got, []string{"jump services"}) {
			t.Errorf("%s has %q, want only a jump to services", hook, got)
		}
	}
}

// The fake cannot run this one: its reference check reads "goto ep-…," with the comma as a
// chain name. The transaction text is what nft would be given.
func TestRulesetSpreadsOverAllEndpoints(t *testing.T) {
	tx := knftables.NewFake(knftables.IPv4Family, Table).NewTransaction()
	Ruleset(tx, nodeIP, []ServicePort{{Namespace: "default", Name: "web", Port: "http", PortNumber: 80, NodePort: 30080,
		Endpoints: []Endpoint{{IP: "10.0.0.1", Port: 8080}, {IP: "10.0.0.2", Port: 8080}}}})
	want := "add rule ip skewcheck-ipmode svc-default/web/http numgen random mod 2 vmap { 0 : goto ep-10.0.0.1/8080, 1 : goto ep-10.0.0.2/8080 }\n"
	if got := tx.String(); !strings.Contains(got, want) {
		t.Errorf("transaction lacks %q:\n%s", want, got)
	}
}

func TestRulesetSharesEndpointChainBetweenServices(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	ep := []Endpoint{{IP: "10.0.0.1", Port: 8080}}
	program(t, fake, []ServicePort{
		{Namespace: "default", Name: "a", Port: "http", PortNumber: 80, NodePort: 30080, Endpoints: ep},
		{Namespace: "default", Name: "b", Port: "http", PortNumber: 80, NodePort: 30081, Endpoints: ep},
	})
	if got := rules(t, fake, "ep-10.0.0.1/8080"); len(got) != 1 {
		t.Errorf("shared endpoint chain has %q, want one DNAT rule", got)
	}
}

func TestRulesetRewriteDropsStaleRules(t *testing.T) {
	a := ServicePort{Namespace: "default", Name: "a", Port: "http", PortNumber: 80, NodePort: 30080,
		ShortCircuit: []string{"203.0.113.1"}, Endpoints: []Endpoint{{IP: "10.0.0.1", Port: 8080}}}
	b := ServicePort{Namespace: "default", Name: "b", Port: "http", PortNumber: 80, NodePort: 30081,
		ShortCircuit: []string{"203.0.113.2"}, Endpoints: []Endpoint{{IP: "10.0.0.2", Port: 8080}}}

	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, []ServicePort{a, b})
	if got := rules(t, fake, "services"); len(got) != 4 {
		t.Fatalf("first sync: chain services has %q, want 4 rules", got)
	}
	program(t, fake, []ServicePort{a})

	fresh := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fresh, []ServicePort{a})
	if got, want := fake.Dump(), fresh.Dump(); got != want {
		t.Errorf("after the second sync the table is\n%s\nwant what a first sync of the same ports gives\n%s", got, want)
	}
	if dump := fake.Dump(); strings.Contains(dump, "203.0.113.2") || strings.Contains(dump, "10.0.0.2") || strings.Contains(dump, "svc-default/b/") {
		t.Errorf("service b survived the rewrite:\n%s", dump)
	}
}

func TestRulesetWithNoPortsLeavesOnlyTheSkeleton(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, nil)
	var chains []string
	for name := range fake.Table.Chains {
		chains = append(chains, name)
	}
	slices.Sort(chains)
	if want := []string{"output", "postrouting", "prerouting", "services"}; !slices.Equal(chains, want) {
		t.Errorf("chains %q, want %q", chains, want)
	}
}

// Namespaces and names may hold "-": Service c in namespace a-b and Service b-c in namespace
// a must not share a chain, or the LB IP of one reaches the endpoints of the other.
func TestRulesetKeepsLookalikeServiceNamesApart(t *testing.T) {
	fake := knftables.NewFake(knftables.IPv4Family, Table)
	program(t, fake, []ServicePort{
		{Namespace: "a-b", Name: "c", Port: "http", PortNumber: 80,
			ShortCircuit: []string{"203.0.113.1"}, Endpoints: []Endpoint{{IP: "10.0.0.1", Port: 8080}}},
		{Namespace: "a", Name: "b-c", Port: "http", PortNumber: 80,
			ShortCircuit: []string{"203.0.113.2"}, Endpoints: []Endpoint{{IP: "10.0.0.2", Port: 8080}}},
	})
	var targets []string
	for _, r := range rules(t, fake, "services") {
		targets = append(targets, r[strings.LastIndex(r, " ")+1:])
	}
	if len(targets) != 2 || targets[0] == targets[1] {
		t.Errorf("the two Services' LB IPs jump to %q, want two different chains\n%s", targets, fake.Dump())
	}
}

// The table is family ip: an IPv6 ingress IP of a dual-stack LoadBalancer must stay out of
// it, or nft rejects "ip daddr <ipv6>" and the whole sync fails, for every Service.
func TestResolveShortCircuitsOnlyIPv4IngressIPs(t *testing.T) {
	p := loadBalancer(t, ingress("203.0.113.1", vip), ingress("2001:db8::1", vip))
	if want := []string{"203.0.113.1"}; !slices.Equal(p.ShortCircuit, want) {
		t.Errorf("ShortCircuit = %q, want %q", p.ShortCircuit, want)
	}
}
