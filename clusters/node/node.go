// Package node is the contract between the providers that run apiservers and the faults
// that act on them: what a node behind an endpoint can hand a fault (a path its peers
// reach it through, the sockets it dials its peers from, the certificate files it reads),
// as plain values. A provider fills them in; scenarios/faults acts on them and never sees
// a provider's own types, so a new provider implements the node interfaces of
// scenarios/faults with these values and nothing of the local provider's. It imports no
// provider, no Docker and no reference.
package node

import (
	"github.com/Shopify/toxiproxy/v2"

	"github.com/skewcheck/skewcheck/clusters/pki"
)

// PeerPath is a forwarder of the harness in front of one server's peer address: every
// connection from its peers passes it, and nothing else does.
type PeerPath struct {
	// Address is the ip:port peers dial; Proxy is the toxiproxy proxy, for toxics.
	Address string
	Proxy   *toxiproxy.Proxy
}

// Dialer is an apiserver that dials its peers from sockets of its own, told apart by a
// network namespace or a cgroup: what an exact partition between two servers acts on.
type Dialer struct {
	Name string
	// IP and Port are where it serves; PeerAdvertise the ip:port it advertises to its
	// peers instead, when it has one ("" otherwise).
	IP, PeerAdvertise string
	Port              int
	// NetNS is the path of its own network namespace (/proc/<pid>/ns/net), where it has
	// one; else Cgroup tells its sockets apart, where the machine has cgroup v2.
	NetNS  string
	Cgroup *Cgroup
}

// Cgroup is the cgroup (v2) a server's process runs in.
type Cgroup struct {
	Dir string // absolute path
	// Rel and Level are how nftables names it: the path below /sys/fs/cgroup (where nft
	// looks it up) and its depth in the cgroup v2 hierarchy.
	Rel   string
	Level int
}

// CertFiles are the certificate files a server (or the proxy in front of it) reads while
// it runs, and the CAs that issued them: what certificate faults replace on disk. A file
// the node does not read is left empty.
type CertFiles struct {
	// Serving is the apiserver's --tls-cert-file/--tls-private-key-file, issued by
	// ServingCA; peers and clients verify it. ServingAt is the address it is served at.
	Serving, ServingCA pki.Pair
	ServingAt          string
	// ProxyClient is the certificate the proxy presents to its peers
	// (--proxy-client-cert-file/--proxy-client-key-file), issued by ProxyClientCA, which
	// every peer trusts through --requestheader-client-ca-file.
	ProxyClient, ProxyClientCA pki.Pair
	// PeerCA is the file the proxy verifies its peers' serving certificates with
	// (--peer-ca-file), read by this server alone.
	PeerCA string
}
