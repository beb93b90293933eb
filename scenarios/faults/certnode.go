package faults

import (
	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// The capabilities certificate faults (certs.go) act on, declared through CertNode.
var (
	// ServingCert is the faulted server's serving certificate on disk, with the CA that
	// issued it and the address it is served at (local and containers clusters, also
	// behind a front: the apiserver's).
	ServingCert = framework.DeclareCapability("ServingCert", "its serving certificate files")
	// ProxyClientCert is the client certificate the entry's proxy presents to its peers,
	// with the CA they trust it by (local and containers apiservers; the reference peer
	// proxy's front declares its own).
	ProxyClientCert = framework.DeclareCapability("ProxyClientCert", "the entry's proxy client certificate files")
	// PeerCAFile is the entry's --peer-ca-file, a file of its own (local and containers
	// apiservers; the reference verifies peers with the cluster CA it also verifies its
	// own apiserver by, which a fault on peers alone cannot replace).
	PeerCAFile = framework.DeclareCapability("PeerCAFile", "the entry's own peer CA file")
)

// CertNode is a node that says which certificate files it reads.
type CertNode interface {
	framework.Node
	CertFiles() node.CertFiles
}

// certsOf are the certificate files the node behind e declares, or nil.
func certsOf(e *framework.Endpoint) *node.CertFiles {
	if e == nil {
		return nil
	}
	if n, ok := e.Node.(CertNode); ok {
		c := n.CertFiles()
		return &c
	}
	return nil
}

// lacksCerts says what the subject would need to have the certificate capability c, or
// "" when it has it.
func (s Subject) lacksCerts(c Capability) string {
	switch c {
	case ServingCert:
		if s.certs == nil || s.certs.Serving.CertFile == "" || s.certs.ServingCA.KeyFile == "" || s.certs.ServingAt == "" {
			return "a server whose certificate files skewcheck writes (a local or containers cluster)"
		}
	case ProxyClientCert:
		if s.entryCerts == nil || s.entryCerts.ProxyClient.CertFile == "" || s.entryCerts.ProxyClientCA.KeyFile == "" {
			return "an entry whose proxy client certificate skewcheck writes (a local or containers apiserver, or the reference peer proxy in front of one)"
		}
	case PeerCAFile:
		if s.entryCerts == nil || s.entryCerts.PeerCA == "" {
			return "an entry with a peer CA file of its own (a local or containers apiserver with the proxy on; the reference verifies peers with the cluster CA, which is also its apiserver's)"
		}
	}
	return ""
}

// holder names the endpoint that would have c: the entry for what the proxy that
// forwards holds, else the faulted server.
func (s Subject) holder(c Capability) string {
	if c == ProxyClientCert || c == PeerCAFile {
		return s.entryName()
	}
	return s.at()
}
