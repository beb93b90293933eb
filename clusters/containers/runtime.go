package containers

import (
	"context"
	"sync"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Runtime is a connection to the local Docker engine.
type Runtime struct {
	provider *testcontainers.DockerProvider
}

var sweepOnce sync.Once

// Connect reaches the Docker engine (DOCKER_HOST, or the default socket), and removes the
// containers of dead skewcheck runs once per process.
func Connect(ctx context.Context) (*Runtime, error) {
	// testcontainers-go prints a banner and a line per step on the standard logger; skewcheck
	// says what it does in its own progress lines.
	tclog.SetDefault(tclog.NewNoopLogger())
	var p *testcontainers.DockerProvider
	var err error
	withRyukOffUnlessAsked(func() { p, err = testcontainers.NewDockerProvider() })
	if err == nil {
		err = p.Health(ctx)
	}
	if err != nil {
		return nil, unreachable(err)
	}
	r := &Runtime{provider: p}
	sweepOnce.Do(func() { r.sweep(ctx) })
	return r, nil
}

// Close releases the connection.
func (r *Runtime) Close() error { return r.provider.Close() }

// Provider is testcontainers-go's Docker provider, for building images (clusters/images).
func (r *Runtime) Provider() *testcontainers.DockerProvider { return r.provider }

func (r *Runtime) client() client.APIClient { return r.provider.Client() }
