package faults

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
)

// Subject is what a fault acts on: one server's endpoint (process faults) and its peer
// path (network faults), plus the other servers' peer paths (a partition both ways); for an
// exact partition, the server and the one peer it is cut from. Servers are the cluster's
// apiservers, where peer traffic starts: packet faults on a peer path also go into the
// network namespace of each that has one of its own (containers), else they see only
// traffic from this machine's.
type Subject struct {
	Endpoint     *framework.Endpoint
	Path         *local.PeerPath
	Others       []*local.PeerPath
	Server, Peer *local.Server
	Servers      []*local.Server
	// Cluster is every endpoint of the target: where the peers of a NetNode are; Entry is
	// the one the load enters by, which an exact partition of a NetNode cuts it from.
	Cluster []*framework.Endpoint
	Entry   *framework.Endpoint
}

var catalogue = map[string]func(Subject) Fault{
	"crash":                  func(s Subject) Fault { return Crash(s.Endpoint) },
	"stop":                   func(s Subject) Fault { return Stop(s.Endpoint) },
	"freeze":                 func(s Subject) Fault { return Freeze(s.Endpoint) },
	"refused":                func(s Subject) Fault { return Refused(s.Path) },
	"reset":                  func(s Subject) Fault { return Reset(s.Path) },
	"blackhole":              func(s Subject) Fault { return Blackhole(s.Path) },
	"half-open":              func(s Subject) Fault { return HalfOpen(s.Path) },
	"latency":                func(s Subject) Fault { return Latency(s.Path, 1000) },
	"bandwidth":              func(s Subject) Fault { return Bandwidth(s.Path, 1) },
	"slow-close":             func(s Subject) Fault { return SlowClose(s.Path, 5000) },
	"loss":                   func(s Subject) Fault { return Loss(s.Path, 30, s.Servers...) },
	"partition":              func(s Subject) Fault { return Partition(append([]*local.PeerPath{s.Path}, s.Others...), s.Servers...) },
	"partition-pair":         func(s Subject) Fault { return PartitionPair(s.Server, s.Peer, false) },
	"partition-pair-one-way": func(s Subject) Fault { return PartitionPair(s.Peer, s.Server, true) },
	"partition-one-way": func(s Subject) Fault {
		f := Partition([]*local.PeerPath{s.Path}, s.Servers...).(*packets)
		f.name = "partition-one-way"
		return f
	},
}

// Names lists every fault by name, sorted.
func Names() []string {
	var n []string
	for k := range catalogue {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Check says whether name is a fault, before anything exists to inject it into.
func Check(name string) error {
	if _, ok := catalogue[name]; !ok {
		return fmt.Errorf("unknown fault %q: the faults are %s", name, strings.Join(Names(), ", "))
	}
	return nil
}

// ByName makes the named fault for subject. Network faults need a peer path: the
// subject's, or else that of the server behind its endpoint.
func ByName(name string, s Subject) (Fault, error) {
	if err := Check(name); err != nil {
		return nil, err
	}
	if s.Path == nil && s.Endpoint != nil {
		s.Path = PeerPathOf(s.Endpoint)
	}
	make := catalogue[name]
	switch name {
	case "crash", "stop", "freeze":
		if s.Endpoint == nil || s.Endpoint.Node == nil {
			return nil, fmt.Errorf("fault %s needs a server skewcheck runs (a local cluster)", name)
		}
	case "partition-pair", "partition-pair-one-way":
		if s.Endpoint != nil && s.Server == nil {
			if _, ok := s.Endpoint.Node.(NetNode); ok {
				return onNetNode(name, s)
			}
		}
		if s.Server == nil || s.Peer == nil {
			return nil, fmt.Errorf("fault %s needs two apiservers skewcheck runs, told apart by cgroup (processes) or network namespace (containers); traffic from a proxy inside skewcheck's own process (the reference) cannot be", name)
		}
	default:
		if s.Path == nil && s.Endpoint != nil {
			if _, ok := s.Endpoint.Node.(NetNode); ok {
				return onNetNode(name, s)
			}
		}
		if s.Path == nil {
			return nil, fmt.Errorf("fault %s needs a peer path: a local cluster made with PeerPaths", name)
		}
	}
	return make(s), nil
}

// PeerPathOf is the peer path into the server behind an endpoint of a local cluster (the
// apiserver's own, or the one behind a sidecar), or nil.
func PeerPathOf(e *framework.Endpoint) *local.PeerPath {
	switch n := e.Node.(type) {
	case *local.Server:
		return n.PeerPath
	case *local.Fronted:
		return n.Server.PeerPath
	}
	return nil
}

// Silent reports whether the named fault leaves the server registered but answering
// nothing, for as long as it lasts: a proxy must answer 503 for what the server serves,
// and keep doing so past every timeout and refresh of its own, never 404.
func Silent(name string) bool {
	switch name {
	case "freeze", "blackhole", "half-open":
		return true
	}
	return false
}

// OnPeerPath reports whether the named fault acts on a peer path (not on a process).
func OnPeerPath(name string) bool {
	switch name {
	case "crash", "stop", "freeze", "partition-pair", "partition-pair-one-way":
		return false
	}
	return true
}

// IsProcess reports whether the named fault acts on a server's process.
func IsProcess(name string) bool {
	switch name {
	case "crash", "stop", "freeze":
		return true
	}
	return false
}
