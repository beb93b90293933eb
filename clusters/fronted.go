package clusters

import (
	"context"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// FrontedNode is an apiserver's node and the front before it (a sidecar), which share a
// fate, as the node of a target whose endpoints are the fronts: a sidecar runs and dies
// with its apiserver's pod or machine. Stop and Kill end the sidecar, then the server.
// Freeze freezes the server alone: the sidecar stays up and must answer for it. Start
// starts whichever is down. Providers wrap it to keep the capabilities of their nodes
// that still hold with a front in the way (FrontServer.Fronted).
type FrontedNode struct {
	Server  framework.Node
	Sidecar Sidecar
	// Down reports whether the server is stopped or killed, so Start starts it.
	Down func() bool
}

func (f *FrontedNode) Stop(timeout time.Duration) error {
	f.Sidecar.StopSidecar(true)
	return f.Server.Stop(timeout)
}

func (f *FrontedNode) Kill() error {
	f.Sidecar.StopSidecar(false)
	return f.Server.Kill()
}

func (f *FrontedNode) Freeze() error { return f.Server.Freeze() }
func (f *FrontedNode) Thaw() error   { return f.Server.Thaw() }

func (f *FrontedNode) Start(ctx context.Context) error {
	if f.Down() {
		if err := f.Server.Start(ctx); err != nil {
			return err
		}
	}
	if !f.Sidecar.Running() {
		return f.Sidecar.StartSidecar(ctx)
	}
	return nil
}
