package containers

import (
	"context"
	"fmt"
	"os"

	"github.com/moby/moby/client"
)

// Dial is a plain client of the local Docker engine (DOCKER_HOST, or the default socket),
// checked with a ping, for code that talks to the engine without testcontainers-go (kind
// nodes, node images). Its error says how to get an engine.
func Dial(ctx context.Context) (*client.Client, error) {
	c, err := client.New(client.FromEnv, client.WithAPIVersionNegotiation())
	if err == nil {
		_, err = c.Ping(ctx, client.PingOptions{})
	}
	if err != nil {
		if c != nil {
			c.Close()
		}
		return nil, unreachable(err)
	}
	return c, nil
}

func unreachable(err error) error {
	return fmt.Errorf("the Docker engine is not reachable (DOCKER_HOST=%q): %w; start dockerd, or point DOCKER_HOST at a running engine", os.Getenv("DOCKER_HOST"), err)
}
