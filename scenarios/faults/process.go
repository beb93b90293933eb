package faults

import (
	"context"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// Process faults act on a server's process (and, for a reference target, the proxy that
// shares its fate) through the target's Node.
type process struct {
	name, server, what string
	inject             func(context.Context) error
	heal               func(context.Context) error
}

func (p *process) Name() string                     { return p.name }
func (p *process) Description() string              { return p.server + " " + p.what }
func (p *process) Inject(ctx context.Context) error { return p.inject(ctx) }
func (p *process) Heal(ctx context.Context) error   { return p.heal(ctx) }

// Crash kills the server (SIGKILL): its identity lease stays until it expires.
func Crash(e *framework.Endpoint) Fault {
	return &process{name: "crash", server: e.Name, what: "killed (SIGKILL), restarted on heal",
		inject: func(context.Context) error { return e.Node.Kill() }, heal: e.Node.Start}
}

// Stop stops the server gracefully (SIGTERM): 1.35+ deletes its identity lease.
func Stop(e *framework.Endpoint) Fault {
	return &process{name: "stop", server: e.Name, what: "stopped gracefully (SIGTERM), restarted on heal",
		inject: func(context.Context) error { return e.Node.Stop(30 * time.Second) }, heal: e.Node.Start}
}

// Freeze stops the server where it is (SIGSTOP): connections stay open, nothing answers.
func Freeze(e *framework.Endpoint) Fault {
	return &process{name: "freeze", server: e.Name, what: "frozen (SIGSTOP), thawed on heal",
		inject: func(context.Context) error { return e.Node.Freeze() },
		heal:   func(context.Context) error { return e.Node.Thaw() }}
}
