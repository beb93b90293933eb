package faults

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// fakeNode is a NetNode at a fixed namespace and address.
type fakeNode struct{ name, ns, addr string }

func (n *fakeNode) Name() string                 { return n.name }
func (n *fakeNode) NetNS() (string, error)       { return n.ns, nil }
func (n *fakeNode) PeerAddress() (string, error) { return n.addr, nil }
func (*fakeNode) Stop(time.Duration) error       { return nil }
func (*fakeNode) Kill() error                    { return nil }
func (*fakeNode) Freeze() error                  { return nil }
func (*fakeNode) Thaw() error                    { return nil }
func (*fakeNode) Start(context.Context) error    { return nil }

// threeNetNodes are three apiservers each in a node with a network namespace of its own
// (as kind's), and nothing else a fault could act on.
func threeNetNodes() []*framework.Endpoint {
	return []*framework.Endpoint{
		{Name: "apiserver-1", Node: &fakeNode{"n1", "/proc/11/ns/net", "172.20.0.4:6443"}},
		{Name: "apiserver-2", Node: &fakeNode{"n2", "/proc/12/ns/net", "172.20.0.3:6443"}},
		{Name: "apiserver-3", Node: &fakeNode{"n3", "/proc/13/ns/net", "172.20.0.5:6443"}},
	}
}

// On a node with a namespace of its own (kind), a fault's rules go into the nodes'
// namespaces only, never this machine's: the way in from each peer's node, the way out
// (answers to the peers' addresses) in the node's own.
func TestNetNodeFaultPlaces(t *testing.T) {
	nodes := threeNetNodes()
	in := "ip daddr 172.20.0.3 tcp dport 6443"
	out := "ip saddr 172.20.0.3 tcp sport 6443 ip daddr { 172.20.0.4, 172.20.0.5 } drop"
	for name, want := range map[string][]place{
		"partition-one-way": {{"/proc/11/ns/net", []string{in + " drop"}}, {"/proc/13/ns/net", []string{in + " drop"}}},
		"half-open":         {{"/proc/12/ns/net", []string{out}}},
		"partition": {{"/proc/11/ns/net", []string{in + " drop"}}, {"/proc/13/ns/net", []string{in + " drop"}},
			{"/proc/12/ns/net", []string{"ip daddr 172.20.0.4 tcp dport 6443 drop", "ip daddr 172.20.0.5 tcp dport 6443 drop"}}},
		"blackhole": {{"/proc/11/ns/net", []string{in + " drop"}}, {"/proc/13/ns/net", []string{in + " drop"}}, {"/proc/12/ns/net", []string{out}}},
		"refused":   {{"/proc/11/ns/net", []string{in + " reject with tcp reset"}}, {"/proc/13/ns/net", []string{in + " reject with tcp reset"}}},
	} {
		f, err := ByName(name, NewSubject(nodes, nodes[1], nil))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := f.(*packets).places
		if !slices.EqualFunc(got, want, func(a, b place) bool { return a.ns == b.ns && slices.Equal(a.rules, b.rules) }) {
			t.Errorf("%s: places\n%+v\nwant\n%+v", name, got, want)
		}
	}
	// The exact partitions cut it from the entry's node only (apiserver-1 here).
	for name, want := range map[string][]place{
		"partition-pair":         {{"/proc/11/ns/net", []string{in + " drop"}}, {"/proc/12/ns/net", []string{"ip daddr 172.20.0.4 tcp dport 6443 drop"}}},
		"partition-pair-one-way": {{"/proc/11/ns/net", []string{in + " drop"}}},
	} {
		f, err := ByName(name, NewSubject(nodes, nodes[1], nodes[0]))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := f.(*packets).places
		if !slices.EqualFunc(got, want, func(a, b place) bool { return a.ns == b.ns && slices.Equal(a.rules, b.rules) }) {
			t.Errorf("%s: places\n%+v\nwant\n%+v", name, got, want)
		}
		if _, err := ByName(name, NewSubject(nodes, nodes[1], nil)); err == nil || !strings.Contains(err.Error(), "name the entry") {
			t.Errorf("%s without an entry: %v", name, err)
		}
	}
	if _, err := ByName("latency", NewSubject(nodes, nodes[1], nil)); err == nil || !strings.Contains(err.Error(), "blackhole, half-open") {
		t.Errorf("latency on a node: %v; want an error naming the faults a node takes", err)
	}
	if _, err := ByName("blackhole", NewSubject(nodes[1:2], nodes[1], nil)); err == nil {
		t.Error("blackhole with no other node: no error")
	}
}
