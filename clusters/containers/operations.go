package containers

import (
	"context"
	"fmt"
	"time"

	"github.com/moby/moby/client"
)

// ID is the engine's id of the container.
func (c *Container) ID() string { return c.ctr.GetContainerID() }

// Signal sends sig ("TERM", "KILL") to the container's first process.
func (c *Container) Signal(ctx context.Context, sig string) error {
	if _, err := c.rt.client().ContainerKill(ctx, c.ID(), client.ContainerKillOptions{Signal: sig}); err != nil {
		return fmt.Errorf("sending SIG%s to container %s: %w", sig, c.Name, err)
	}
	return nil
}

// Pause freezes every process of the container (the cgroup freezer): connections stay
// open, nothing answers. Unpause lets them go on.
func (c *Container) Pause(ctx context.Context) error {
	if _, err := c.rt.client().ContainerPause(ctx, c.ID(), client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("pausing container %s: %w", c.Name, err)
	}
	return nil
}

func (c *Container) Unpause(ctx context.Context) error {
	if _, err := c.rt.client().ContainerUnpause(ctx, c.ID(), client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("unpausing container %s: %w", c.Name, err)
	}
	return nil
}

// Wait returns once the container has exited and its output is all in its log, then
// removes it, so that its name and address are free for the next one.
func (c *Container) Wait() error {
	<-c.done
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.remove(ctx)
}
