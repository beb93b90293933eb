package faults

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// Subject is what a fault acts on, found once, by NewSubject, from the capabilities the
// endpoints' nodes declare: the faulted server's endpoint (process faults) and its peer
// path (network faults), plus the other servers' peer paths (a partition both ways); for
// an exact partition, the server and the entry's server it is cut from. servers are the
// apiservers that dial their peers themselves, where peer traffic starts: packet faults
// on a peer path also go into the network namespace of each that has one of its own
// (containers), else they see only traffic from this machine's.
type Subject struct {
	endpoint     *framework.Endpoint
	path         *node.PeerPath
	others       []*node.PeerPath
	server, peer *node.Dialer
	servers      []*node.Dialer
	// cluster is every endpoint of the target: where the peers of a NetNode are; entry is
	// the one the load enters by, which an exact partition cuts the faulted server from.
	cluster []*framework.Endpoint
	entry   *framework.Endpoint
	// load is the route the load takes, when known (Loading): where a slow client
	// connects and what a slow body lists.
	load framework.Route
	// registrar is how the target's servers register (WithRegistrar), for the lease time
	// faults; nil when the caller gave none.
	registrar framework.Registrar
	// certs are the faulted server's certificate files, entryCerts the entry's
	// (certificate faults), when their nodes declare them.
	certs, entryCerts *node.CertFiles
	// disconnector cuts the faulted server, the cluster's member disconnected, off the
	// cluster's network (WithDisconnector); nil where the cluster cannot.
	disconnector clusters.Disconnector
	disconnected string
}

// NewSubject is the subject of a fault on the server behind faulted, one of the endpoints
// of cluster, while a load enters by entry (nil when there is none).
func NewSubject(cluster []*framework.Endpoint, faulted, entry *framework.Endpoint) Subject {
	s := Subject{endpoint: faulted, cluster: cluster, entry: entry,
		path: PeerPathOf(faulted), server: dialerOf(faulted), peer: dialerOf(entry),
		certs: certsOf(faulted), entryCerts: certsOf(entry)}
	for _, e := range cluster {
		if d := dialerOf(e); d != nil {
			s.servers = append(s.servers, d)
		}
		if p := PeerPathOf(e); p != nil && e != faulted {
			s.others = append(s.others, p)
		}
	}
	return s
}

// at names the faulted endpoint in errors.
func (s Subject) at() string {
	if s.endpoint == nil {
		return ""
	}
	return s.endpoint.Name
}

// entryName names the entry of the load in descriptions.
func (s Subject) entryName() string {
	if s.entry == nil {
		return "the entry"
	}
	return s.entry.Name
}
