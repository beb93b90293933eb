package faults

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// Kind is one kind of fault: a row of the registry. Adding a kind is a row here and its
// making in a file of its own; every question about a fault's name (Check, Silent,
// OnPeerPath, IsProcess, the catalogue) is answered from the row.
type Kind struct {
	Name string
	// On is what it acts on; a subject whose node lacks it gets a Missing error.
	On Capability
	// Silent: it leaves the server registered but answering nothing, for as long as it
	// lasts: a proxy must answer 503 for what the server serves, and keep doing so past
	// every timeout and refresh of its own, never 404. A silent fault expects Unavailable.
	Silent bool
	// Expect is what clients must see while it lasts, beyond what every fault requires.
	Expect Expectation
	// Description says what it does, for the catalogue.
	Description string
	// Make makes it for a subject that has On.
	Make func(Subject) Fault
	// AtLeast, when set, is how long it must last for what it measures to happen (a slow
	// client outlasting a front's header and request timeouts): a run holds it that long
	// even when asked for less.
	AtLeast time.Duration
	// OnNetNS, when set, is what it does on a NetNode instead, where the subject has no On
	// (kind): nftables rules in the node's and its peers' namespaces (nodes.go).
	OnNetNS func(netTarget) (what string, places []place)
	// OnDisconnector, when set, is what it does where the cluster cuts servers off its
	// network itself (Subject.WithDisconnector: containers), in preference to On: the
	// partition that cluster's provider has.
	OnDisconnector func(Subject) Fault
}

var registry = []Kind{
	{Name: "crash", Expect: Unavailable, On: Process, Description: "the server killed (SIGKILL), restarted on heal",
		Make: func(s Subject) Fault { return Crash(s.endpoint) }},
	{Name: "stop", On: Process, Description: "the server stopped gracefully (SIGTERM), restarted on heal",
		Make: func(s Subject) Fault { return Stop(s.endpoint) }},
	{Name: "freeze", Expect: Unavailable, On: Process, Silent: true, Description: "the server frozen (SIGSTOP), thawed on heal",
		Make: func(s Subject) Fault { return Freeze(s.endpoint) }},
	{Name: "refused", Expect: Unavailable, On: PeerPath, Description: "connections from its peers refused (the peer path's listener closed)",
		Make: func(s Subject) Fault { return Refused(s.path) }, OnNetNS: netRefused},
	{Name: "reset", On: PeerPath, Description: "connections from its peers reset (TCP RST)",
		Make: func(s Subject) Fault { return Reset(s.path) }},
	{Name: "blackhole", Expect: Unavailable, On: PeerPath, Silent: true, Description: "connections from its peers open, no data either way",
		Make: func(s Subject) Fault { return Blackhole(s.path) }, OnNetNS: netBlackhole},
	{Name: "half-open", Expect: Unavailable, On: PeerPath, Silent: true, Description: "its peers' requests arrive, its answers never come back",
		Make: func(s Subject) Fault { return HalfOpen(s.path) }, OnNetNS: netHalfOpen},
	{Name: "latency", On: PeerPath, Description: "1000 ms added each way on its peer path",
		Make: func(s Subject) Fault { return Latency(s.path, 1000) }},
	{Name: "bandwidth", On: PeerPath, Description: "its answers to its peers limited to 1 KB/s",
		Make: func(s Subject) Fault { return Bandwidth(s.path, 1) }},
	{Name: "slow-body", On: PeerPath, AtLeast: 95 * time.Second, Description: "its answers to its peers limited to 1 KB/s while a list of 75 KB (75 s) is read through the entry: does the front stream it, time out with a 5xx, or break a 200",
		Make: func(s Subject) Fault { return SlowBody(s.path, s.load, 1) }},
	{Name: "slow-client", Expect: Unnoticed, On: Entry, AtLeast: 65 * time.Second, Description: "8 slow-loris connections each to the entry: headers, a create's body and a watch read a byte a second; other clients must see nothing; when the front cuts them is measured",
		Make: func(s Subject) Fault { return SlowClient(s.load.Entry, s.load, 8) }},
	{Name: "slow-close", On: PeerPath, Description: "closing its peers' connections delayed 5 s",
		Make: func(s Subject) Fault { return SlowClose(s.path, 5000) }},
	{Name: "loss", On: PeerPath, Description: "30% of the packets from its peers dropped (nftables)",
		Make: func(s Subject) Fault { return Loss(s.path, 30, s.servers...) }, OnNetNS: netLoss},
	{Name: "partition", Expect: Unavailable, On: PeerPath, Description: "cut off from its peers, both ways (nftables)",
		Make: func(s Subject) Fault {
			return Partition(append([]*node.PeerPath{s.path}, s.others...), s.servers...)
		}, OnNetNS: netPartition, OnDisconnector: func(s Subject) Fault { return Disconnect(s.disconnector, s.disconnected) }},
	{Name: "partition-one-way", On: PeerPath, Description: "nothing from its peers reaches it; its own dials pass (nftables)",
		Make: func(s Subject) Fault {
			f := Partition([]*node.PeerPath{s.path}, s.servers...).(*packets)
			f.name = "partition-one-way"
			return f
		}, OnNetNS: netPartitionOneWay},
	{Name: "partition-pair", On: PeerSockets, Description: "cut apart from the entry's server both ways, its other peers untouched (nftables)",
		Make: func(s Subject) Fault { return PartitionPair(s.server, s.peer, false) }, OnNetNS: netPartitionPair},
	{Name: "partition-pair-one-way", On: PeerSockets, Description: "the entry's server cannot reach it, its other peers untouched (nftables)",
		Make: func(s Subject) Fault { return PartitionPair(s.peer, s.server, true) }, OnNetNS: netPartitionPairOneWay},
	{Name: "clock-behind-2h", Expect: Unnoticed, On: Registration, Description: "its registration renewed as by a clock 2 h behind: past the lease's 1 h duration, expired to whoever trusts its renew time",
		Make: func(s Subject) Fault { return s.renewSkew("clock-behind-2h", -2*time.Hour) }},
	{Name: "clock-behind-30s", Expect: Unnoticed, On: Registration, Description: "its registration renewed as by a clock 30 s behind",
		Make: func(s Subject) Fault { return s.renewSkew("clock-behind-30s", -30*time.Second) }},
	{Name: "clock-ahead-2h", Expect: Unnoticed, On: Registration, Description: "its registration renewed as by a clock 2 h ahead: a renew time in the future",
		Make: func(s Subject) Fault { return s.renewSkew("clock-ahead-2h", 2*time.Hour) }},
	// Certificate faults (certs.go): files replaced on disk while traffic flows.
	{Name: "rotate-serving", Expect: Unnoticed, On: ServingCert, Description: "its serving certificate re-issued on disk by the same CA (a routine rotation)",
		Make: func(s Subject) Fault { return RotateServing(s.at(), *s.certs) }},
	{Name: "expired-serving", Expect: Unavailable, On: ServingCert, Description: "its serving certificate replaced on disk by an expired one of the same CA, its peers' open connections cut once so they handshake again",
		Make: func(s Subject) Fault { return ExpiredServing(s.at(), *s.certs, s.path) }},
	{Name: "rotate-proxy-client", Expect: Unnoticed, On: ProxyClientCert, Description: "the entry's proxy client certificate re-issued on disk by the same CA (a routine rotation)",
		Make: func(s Subject) Fault { return RotateProxyClient(s.entryName(), *s.entryCerts) }},
	{Name: "peer-ca-replaced", On: PeerCAFile, Description: "the entry's --peer-ca-file replaced on disk by an unrelated CA (measured: whether and when the proxy reads it again)",
		Make: func(s Subject) Fault { return PeerCAReplaced(s.entryName(), *s.entryCerts) }},
}

// Kinds is the catalogue: every kind of fault, sorted by name.
func Kinds() []Kind {
	k := slices.Clone(registry)
	slices.SortFunc(k, func(a, b Kind) int { return strings.Compare(a.Name, b.Name) })
	return k
}

// Names lists every fault by name, sorted.
func Names() []string {
	var n []string
	for _, k := range Kinds() {
		n = append(n, k.Name)
	}
	return n
}

func lookup(name string) (Kind, bool) {
	i := slices.IndexFunc(registry, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return registry[i], true
}

// Check says whether name is a fault, before anything exists to inject it into.
func Check(name string) error {
	if _, ok := lookup(name); !ok {
		return fmt.Errorf("unknown fault %q: the faults are %s", name, strings.Join(Names(), ", "))
	}
	return nil
}

// Expected is what clients must see while the named fault lasts (Kind.Expect).
func Expected(name string) Expectation { k, _ := lookup(name); return k.Expect }

// AtLeast is how long the named fault must last (Kind.AtLeast), 0 for no minimum.
func AtLeast(name string) time.Duration { k, _ := lookup(name); return k.AtLeast }

// Silent reports whether the named fault leaves the server registered but answering
// nothing (Kind.Silent).
func Silent(name string) bool { k, _ := lookup(name); return k.Silent }

// OnPeerPath reports whether the named fault acts on a peer path (not on a process, nor
// on the sockets of two servers): a target whose peer traffic goes around the path cannot
// be measured by it.
func OnPeerPath(name string) bool { k, _ := lookup(name); return k.On == PeerPath }

// IsProcess reports whether the named fault acts on a server's process.
func IsProcess(name string) bool { k, _ := lookup(name); return k.On == Process }

// ByName makes the named fault for subject, on what it acts on; on a NetNode without it,
// its NetNS variant. A subject without either gets a *Missing error.
func ByName(name string, s Subject) (Fault, error) {
	k, ok := lookup(name)
	if !ok {
		return nil, Check(name)
	}
	if k.OnDisconnector != nil && s.disconnector != nil {
		return k.OnDisconnector(s), nil
	}
	why := s.lacks(k.On)
	if why == "" {
		return k.Make(s), nil
	}
	if s.endpoint != nil {
		if n, ok := s.endpoint.Node.(framework.NetNode); ok {
			if k.OnNetNS == nil {
				return nil, &Missing{Fault: name, Capability: k.On, At: s.at(),
					Why: "a node's network namespace takes only the network faults " + strings.Join(netNodeFaults(), ", ")}
			}
			return onNetNode(k, s, n)
		}
	}
	return nil, &Missing{Fault: name, Capability: k.On, At: s.holder(k.On), Why: why}
}

// lacks says what the subject would need to have c, or "" when it has it: the check c
// was declared with (declareCapability, beside the capability). A capability declared
// without one is never had, so its faults are Missing rather than made on nothing.
func (s Subject) lacks(c Capability) string {
	check, ok := capabilityChecks[c]
	if !ok {
		return "a check of whether a subject has it, which nothing declared (faults.declareCapability)"
	}
	return check(s)
}

// netNodeFaults are the faults a NetNode takes.
func netNodeFaults() []string {
	var n []string
	for _, k := range Kinds() {
		if k.OnNetNS != nil {
			n = append(n, k.Name)
		}
	}
	return n
}
