package sidecar

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// Enabled reports whether a sidecar was asked for, as a command or as an image.
func (c Config) Enabled() bool { return c.Shell != "" || c.Image != "" }

// CheckImage fails early, before any apiserver starts, when the image cannot run here: no
// Docker engine, or the image is not in it.
func CheckImage(ctx context.Context, image string) error {
	rt, err := containers.Connect(ctx)
	if err != nil {
		return fmt.Errorf("image %s: %w", image, err)
	}
	defer rt.Close()
	return rt.RequireImage(ctx, image)
}

// runtime connects to the Docker engine when the sidecar is an image.
func (c Config) runtime(ctx context.Context) (*containers.Runtime, error) {
	if c.Image == "" {
		return nil, nil
	}
	return containers.Connect(ctx)
}

// startContainer runs the sidecar's image for this node. The container shares the host's
// network namespace: the apiservers listen on 127.77.x.y, which only the host's loopback
// reaches (from a bridge network 127.0.0.0/8 is the container's own), and the harness
// reaches the sidecar at SKEWCHECK_LISTEN, a loopback address too. The files the
// environment names are mounted read-only at the same paths, so the contract is the
// command's, word for word.
func (n *node) startContainer(ctx context.Context) error {
	env, mounts := containers.FromEnv(n.env)
	c, err := n.rt.Start(ctx, containers.Spec{Name: "sidecar-" + env["SKEWCHECK_ID"], Image: n.cfg.Image, Env: env,
		ReadOnly: mounts, NetworkMode: "host", Log: n.log})
	if err != nil {
		return fmt.Errorf("starting sidecar %s for %s: %w", n.cfg.Name, n.server, err)
	}
	n.proc = c
	return n.waitServing(ctx)
}
