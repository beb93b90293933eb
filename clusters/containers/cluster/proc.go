package cluster

import (
	"context"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// proc is an apiserver's container (local.Proc): signals map to the runtime.
type proc struct{ c *containers.Container }

// opTimeout bounds one call to the engine.
const opTimeout = 30 * time.Second

func (p *proc) Signal(sig syscall.Signal) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	switch sig {
	case syscall.SIGSTOP:
		return p.c.Pause(ctx)
	case syscall.SIGCONT:
		return p.c.Unpause(ctx)
	case syscall.SIGKILL:
		// The engine refuses to signal a paused container; a crash of a frozen server
		// must still happen. Unpausing first lets it run for no more than the kill takes.
		p.c.Unpause(ctx)
		return p.c.Signal(ctx, "KILL")
	case syscall.SIGTERM:
		return p.c.Signal(ctx, "TERM")
	}
	return fmt.Errorf("signal %v has no container operation", sig)
}

func (p *proc) Wait() error { return p.c.Wait() }

func (p *proc) Pid() int {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	pid, _ := p.c.Pid(ctx)
	return pid
}

// waitListening waits until addr accepts connections, or fails with how the container
// ended when it exits first.
func waitListening(ctx context.Context, c *containers.Container, addr string, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		if exited, how := c.Exited(); exited {
			return fmt.Errorf("%s", how)
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("nothing listens at %s after %v", addr, bound)
}
