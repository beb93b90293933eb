package faults

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/framework"
)

// The providers' nodes declare the capabilities faults act on (checked here, where the
// interfaces are, so the providers need not import faults).
var (
	_ PathNode   = (*local.Server)(nil)
	_ DialerNode = (*local.Server)(nil)
	_ PathNode   = (*local.Fronted)(nil)
	_ CertNode   = (*local.Server)(nil)
	_ CertNode   = (*local.Fronted)(nil)
)

// localCluster is three servers skewcheck runs, each with a peer path, as endpoints.
func localCluster() []*framework.Endpoint {
	var out []*framework.Endpoint
	for i, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"} {
		s := &local.Server{Name: "apiserver-" + string(rune('1'+i)), IP: ip, Port: 6443,
			PeerPath: &node.PeerPath{Address: "127.77.0." + string(rune('1'+i)) + ":6443"}}
		s.Certs = node.CertFiles{Serving: pki.Pair{CertFile: s.Name + ".crt", KeyFile: s.Name + ".key"},
			ServingCA: pki.Pair{CertFile: "ca.crt", KeyFile: "ca.key"}, ServingAt: ip + ":6443",
			ProxyClient:   pki.Pair{CertFile: "front-proxy-client.crt", KeyFile: "front-proxy-client.key"},
			ProxyClientCA: pki.Pair{CertFile: "front-proxy-ca.crt", KeyFile: "front-proxy-ca.key"}, PeerCA: s.Name + "-peer-ca.crt"}
		out = append(out, &framework.Endpoint{Name: s.Name, Node: s})
	}
	return out
}

// The registry is the one source: every name it lists resolves through ByName to a fault
// of that name, and Silent, OnPeerPath and IsProcess say what its row says.
func TestRegistryIsTheCatalogue(t *testing.T) {
	cluster := localCluster()
	s := NewSubject(cluster, cluster[1], cluster[0]).Loading(framework.Route{Entry: cluster[0], Peer: cluster[1]}).WithRegistrar(&renewals{})
	names := Names()
	if !slices.IsSorted(names) || len(names) != len(registry) {
		t.Fatalf("Names() = %v: want every row, sorted", names)
	}
	for _, k := range Kinds() {
		if err := Check(k.Name); err != nil {
			t.Errorf("Check(%s): %v", k.Name, err)
		}
		f, err := ByName(k.Name, s)
		if err != nil {
			t.Errorf("ByName(%s) on a local cluster: %v", k.Name, err)
			continue
		}
		if f.Name() != k.Name {
			t.Errorf("ByName(%s) made %s", k.Name, f.Name())
		}
		if Silent(k.Name) != k.Silent || OnPeerPath(k.Name) != (k.On == PeerPath) || IsProcess(k.Name) != (k.On == Process) {
			t.Errorf("%s: Silent %v OnPeerPath %v IsProcess %v disagree with its row %+v", k.Name, Silent(k.Name), OnPeerPath(k.Name), IsProcess(k.Name), k)
		}
		if k.Silent && k.Expect != Unavailable || Expected(k.Name) != k.Expect {
			t.Errorf("%s: expects %q (Expected says %q); a silent fault leaves only 503 to answer", k.Name, k.Expect, Expected(k.Name))
		}
		if k.Description == "" || k.Make == nil {
			t.Errorf("%s: a row needs a description and a constructor", k.Name)
		}
	}
	if Check("nope") == nil || Silent("nope") || OnPeerPath("nope") || IsProcess("nope") {
		t.Error("an unknown name passes for a fault")
	}
	if _, err := ByName("nope", s); err == nil {
		t.Error("ByName(nope): no error")
	}
}

// What the name switches the registry replaced said, kept: the silent faults, the process
// faults, and the faults not on a peer path.
func TestRegistryKeepsTheSwitches(t *testing.T) {
	var silent, process, notOnPath []string
	for _, n := range Names() {
		if Silent(n) {
			silent = append(silent, n)
		}
		if IsProcess(n) {
			process = append(process, n)
		}
		if !OnPeerPath(n) {
			notOnPath = append(notOnPath, n)
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"silent", silent, []string{"blackhole", "freeze", "half-open"}},
		{"process", process, []string{"crash", "freeze", "stop"}},
		{"not on a peer path", notOnPath, []string{"clock-ahead-2h", "clock-behind-2h", "clock-behind-30s", "crash", "expired-serving", "freeze", "partition-pair", "partition-pair-one-way", "peer-ca-replaced", "rotate-proxy-client", "rotate-serving", "slow-client", "stop"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
	// The faults a node with a network namespace of its own (kind) takes as nftables rules
	// in the nodes' namespaces, found by making each one there (ByName), not by reading the
	// rows: a row whose NetNS variant is lost, or added unnoticed, fails here.
	want := []string{"blackhole", "half-open", "loss", "partition", "partition-one-way", "partition-pair", "partition-pair-one-way", "refused"}
	nodes := threeNetNodes()
	var onNetNS []string
	for _, n := range Names() {
		f, err := ByName(n, NewSubject(nodes, nodes[1], nodes[0]))
		if p, ok := f.(*packets); err == nil && ok && len(p.places) > 0 {
			onNetNS = append(onNetNS, n)
		}
	}
	if !slices.Equal(onNetNS, want) {
		t.Errorf("the faults made as rules on a NetNode: %v, want %v", onNetNS, want)
	}
	// What a Missing error tells a user of a NetNode it takes.
	if got := netNodeFaults(); !slices.Equal(got, want) {
		t.Errorf("the faults a NetNode is said to take: %v, want %v", got, want)
	}
}

// NewSubject finds every part through the nodes' capabilities: on a local cluster the
// faulted server's peer path, the others', the servers that dial their peers, and the
// entry's server; behind sidecars (Fronted) the peer paths only, and a fault on the
// servers' own sockets is Missing them.
func TestNewSubject(t *testing.T) {
	cluster := localCluster()
	s := NewSubject(cluster, cluster[1], cluster[0])
	srv := func(e *framework.Endpoint) *local.Server { return e.Node.(*local.Server) }
	if s.path != srv(cluster[1]).PeerPath || len(s.others) != 2 || len(s.servers) != 3 ||
		s.server == nil || s.server.Name != "apiserver-2" || s.peer == nil || s.peer.Name != "apiserver-1" {
		t.Errorf("subject on a local cluster: %+v", s)
	}
	var fronted []*framework.Endpoint
	for _, e := range cluster {
		fronted = append(fronted, &framework.Endpoint{Name: e.Name, Node: local.NewFronted(srv(e), nil)})
	}
	s = NewSubject(fronted, fronted[1], fronted[0])
	if s.path != srv(cluster[1]).PeerPath || len(s.others) != 2 || len(s.servers) != 0 || s.server != nil || s.peer != nil {
		t.Errorf("subject behind sidecars: %+v", s)
	}
	var missing *Missing
	if _, err := ByName("partition-pair", s); !errors.As(err, &missing) || missing.Capability != PeerSockets || missing.At != "apiserver-2" {
		t.Errorf("partition-pair behind sidecars: %v; want Missing %s at apiserver-2", err, PeerSockets)
	}
	if _, err := ByName("blackhole", s); err != nil {
		t.Errorf("blackhole behind sidecars: %v", err)
	}
}

// A node that declares nothing (a target skewcheck does not run) gets every fault as a
// Missing error naming the capability, which the suites turn into a skip.
func TestMissingCapability(t *testing.T) {
	bare := []*framework.Endpoint{{Name: "a"}, {Name: "b"}}
	s := NewSubject(bare, bare[1], bare[0])
	for _, k := range Kinds() {
		var missing *Missing
		if _, err := ByName(k.Name, s); !errors.As(err, &missing) || missing.Capability != k.On || missing.Fault != k.Name {
			t.Errorf("%s on a bare endpoint: %v; want Missing %s", k.Name, err, k.On)
		}
	}
}

// fakeDisconnector records what it was asked to cut off.
type fakeDisconnector struct{ cut []string }

func (d *fakeDisconnector) Disconnect(_ context.Context, s string) error {
	d.cut = append(d.cut, s)
	return nil
}
func (d *fakeDisconnector) Reconnect(context.Context, string) error { return nil }
func (d *fakeDisconnector) DisconnectDescription(s string) string {
	return s + " disconnected from the network"
}

// On a cluster that cuts its servers off itself, partition is that cut, whatever else
// the subject has; the other network faults stay what they are.
func TestPartitionOnADisconnector(t *testing.T) {
	cluster := localCluster()
	d := &fakeDisconnector{}
	s := NewSubject(cluster, cluster[1], cluster[0]).WithDisconnector(d, "apiserver-2")
	f, err := ByName("partition", s)
	if err != nil || f.Description() != "apiserver-2 disconnected from the network" {
		t.Fatalf("partition on a disconnector: %v, %v", f, err)
	}
	if err := f.Inject(context.Background()); err != nil || !slices.Equal(d.cut, []string{"apiserver-2"}) {
		t.Errorf("inject cut %v (%v)", d.cut, err)
	}
	if f, err := ByName("partition-one-way", s); err != nil || f.Name() != "partition-one-way" {
		t.Errorf("partition-one-way on a disconnector: %v, %v", f, err)
	}
	bare := []*framework.Endpoint{{Name: "a"}, {Name: "b"}}
	if f, err := ByName("partition", NewSubject(bare, bare[1], bare[0]).WithDisconnector(d, "b")); err != nil || f.Name() != "partition" {
		t.Errorf("partition on a disconnector without peer paths: %v, %v", f, err)
	}
}

// TestUndeclaredCapabilityIsNeverHad: a capability nothing declared a check for is lacked
// by every subject, so a fault on it is Missing, never made on nothing; every capability a
// kind acts on has its check.
func TestUndeclaredCapabilityIsNeverHad(t *testing.T) {
	if why := (Subject{}).lacks(Capability("a capability nothing declared")); why == "" {
		t.Error("an undeclared capability counts as had")
	}
	for _, k := range Kinds() {
		if _, ok := capabilityChecks[k.On]; !ok {
			t.Errorf("fault %s acts on %q, which declares no check (declareCapability)", k.Name, k.On)
		}
	}
}
