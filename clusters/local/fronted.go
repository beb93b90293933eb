package local

import (
	"context"
	"time"
)

// Sidecar is a proxy in front of one server (skewcheck's reference, or a vendor's).
type Sidecar interface {
	Running() bool
	StartSidecar(ctx context.Context) error
	// StopSidecar ends it gracefully, or at once as a crash.
	StopSidecar(graceful bool)
}

// Fronted is a server and the sidecar in front of it, which share a fate, as the node of a
// target whose endpoints are the sidecars. Stop and Kill end the sidecar, then the server.
// Freeze freezes the server alone: the sidecar stays up and must answer for it. Start
// starts whichever is down.
type Fronted struct {
	Server  *Server
	Sidecar Sidecar
}

func (f *Fronted) Stop(timeout time.Duration) error {
	f.Sidecar.StopSidecar(true)
	return f.Server.Stop(timeout)
}

func (f *Fronted) Kill() error {
	f.Sidecar.StopSidecar(false)
	return f.Server.Kill()
}

func (f *Fronted) Freeze() error { return f.Server.Freeze() }

// HasPeerPath: peers reach the fronted server through its peer path when it has one.
func (f *Fronted) HasPeerPath() bool { return f.Server.HasPeerPath() }
func (f *Fronted) Thaw() error       { return f.Server.Thaw() }

// IncomingPeerPath is the fronted server's peer path. A Fronted is no PeerDialer: its
// peer traffic is the sidecar's, which an exact partition cannot tell apart.
func (f *Fronted) IncomingPeerPath() *PeerPath { return f.Server.PeerPath }

func (f *Fronted) Start(ctx context.Context) error {
	if f.Server.State() == Stopped {
		if err := f.Server.Start(ctx); err != nil {
			return err
		}
	}
	if !f.Sidecar.Running() {
		return f.Sidecar.StartSidecar(ctx)
	}
	return nil
}
