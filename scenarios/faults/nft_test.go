package faults

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/node"
)

func server(name, ip, advertise string, cg *node.Cgroup) *node.Dialer {
	return &node.Dialer{Name: name, IP: ip, Port: 6443, Cgroup: cg, PeerAdvertise: advertise}
}

// An exact partition matches each side's sockets by cgroup, and the other side's own and
// advertised addresses; one way has only the first rule.
func TestPartitionPairRules(t *testing.T) {
	a := server("apiserver-1", "127.77.1.11", "127.77.1.41:6443", &node.Cgroup{Rel: "unified/skewcheck-1-a", Level: 1})
	b := server("apiserver-2", "127.77.1.12", "", &node.Cgroup{Rel: "unified/skewcheck-1-b", Level: 1})
	both := PartitionPair(a, b, false).(*packets)
	want := []string{
		`socket cgroupv2 level 1 "unified/skewcheck-1-a" ip daddr { 127.77.1.12 } tcp dport 6443 drop`,
		`socket cgroupv2 level 1 "unified/skewcheck-1-b" ip daddr { 127.77.1.11, 127.77.1.41 } tcp dport 6443 drop`,
	}
	if len(both.places) != 1 || both.places[0].ns != "" || !slices.Equal(both.places[0].rules, want) {
		t.Errorf("places:\n%+v\nwant one, this machine's, with\n%q", both.places, want)
	}
	if one := PartitionPair(a, b, true).(*packets); len(one.places) != 1 || !slices.Equal(one.places[0].rules, want[:1]) || one.Name() != "partition-pair-one-way" {
		t.Errorf("one way: %s %+v", one.Name(), one.places)
	}
}

// Servers in network namespaces of their own (containers' pods) need no cgroup: each
// side's rule goes into its own namespace, matching the other's addresses.
func TestPartitionPairInNamespaces(t *testing.T) {
	a := server("apiserver-1", "10.177.1.11", "10.177.1.41:6443", nil)
	b := server("apiserver-2", "10.177.1.12", "10.177.1.42:6443", nil)
	a.NetNS, b.NetNS = "/proc/101/ns/net", "/proc/102/ns/net"
	both := PartitionPair(a, b, false).(*packets)
	want := []place{
		{ns: a.NetNS, rules: []string{`ip daddr { 10.177.1.12, 10.177.1.42 } tcp dport 6443 drop`}},
		{ns: b.NetNS, rules: []string{`ip daddr { 10.177.1.11, 10.177.1.41 } tcp dport 6443 drop`}},
	}
	if both.unsupported != "" || !slices.EqualFunc(both.places, want, func(x, y place) bool { return x.ns == y.ns && slices.Equal(x.rules, y.rules) }) {
		t.Errorf("places:\n%+v\nwant\n%+v (unsupported: %q)", both.places, want, both.unsupported)
	}
	if !strings.Contains(both.Description(), "in apiserver-1's network namespace") {
		t.Errorf("description %q does not say where the rules are", both.Description())
	}
}

// A fault on a peer path drops what this machine sends to it (the reference's proxies) and
// what each server in a namespace of its own sends, once per namespace.
func TestPeerPathFaultPlaces(t *testing.T) {
	path := &node.PeerPath{Address: "10.177.1.42:6443"}
	one, two := server("apiserver-1", "10.177.1.11", "", nil), server("apiserver-2", "10.177.1.12", "", nil)
	shared := Loss(path, 30, one, two).(*packets)
	if len(shared.places) != 1 || shared.places[0].ns != "" {
		t.Errorf("servers sharing this machine's namespace: places %+v, want this machine's alone", shared.places)
	}
	one.NetNS, two.NetNS = "/proc/101/ns/net", "/proc/102/ns/net"
	f := Partition([]*node.PeerPath{path}, one, two, one).(*packets)
	var got []string
	for _, p := range f.places {
		got = append(got, p.ns)
		if !slices.Equal(p.rules, []string{"ip daddr 10.177.1.42 tcp dport 6443 drop"}) {
			t.Errorf("rules in %q: %q", p.ns, p.rules)
		}
	}
	if want := []string{"", one.NetNS, two.NetNS}; !slices.Equal(got, want) {
		t.Errorf("namespaces %q, want %q", got, want)
	}
}

// Without cgroups the fault says why it cannot be injected, and callers skip it.
func TestPartitionPairWithoutCgroupsIsUnsupported(t *testing.T) {
	f := PartitionPair(server("a", "127.0.0.1", "", nil), server("b", "127.0.0.2", "", nil), false)
	var u Unsupported
	if err := f.Inject(context.Background()); !errors.As(err, &u) {
		t.Errorf("want Unsupported, got %v", err)
	}
}

// The reference's proxies live in skewcheck's process: an exact partition refuses them.
func TestPartitionPairNeedsServers(t *testing.T) {
	if _, err := ByName("partition-pair", Subject{}); err == nil {
		t.Error("partition-pair without servers must be refused")
	}
}
