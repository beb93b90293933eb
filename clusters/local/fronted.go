package local

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/node"
)

// Fronted is a local server and the sidecar in front of it, sharing a fate
// (clusters.FrontedNode), which keeps the server's peer path: peers still reach the server
// through it, so faults on it hold with a sidecar in the way.
type Fronted struct {
	clusters.FrontedNode
	server *Server
}

// NewFronted is s with sidecar in front of it.
func NewFronted(s *Server, sidecar clusters.Sidecar) *Fronted {
	return &Fronted{FrontedNode: clusters.FrontedNode{Server: s, Sidecar: sidecar, Down: func() bool { return s.State() == Stopped }}, server: s}
}

// IncomingPeerPath is the fronted server's peer path. A Fronted is no PeerDialer: its
// peer traffic is the sidecar's, which an exact partition cannot tell apart.
func (f *Fronted) IncomingPeerPath() *node.PeerPath { return f.server.PeerPath }
