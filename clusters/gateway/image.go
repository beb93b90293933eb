package gateway

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// ContainerEnv names, in the apply command's environment, the gateway's container when the
// gateway is an image, so the command can reach into it: docker exec "$SKEWCHECK_GATEWAY_CONTAINER" ...
const ContainerEnv = "SKEWCHECK_GATEWAY_CONTAINER"

// startContainer runs the gateway's image with the command's environment, on the host's
// network (the apiservers listen on loopback addresses, which only the host's loopback
// reaches, and so does the gateway's listen address). The files the environment names are
// mounted read-only at the same paths, the configuration directory read-write: the gateway
// reads every change skewcheck writes there, and may write its own status beside them.
func (g *Gateway) startContainer(ctx context.Context) error {
	rt, err := containers.Connect(ctx)
	if err != nil {
		return fmt.Errorf("gateway image %s: %w", g.cfg.Image, err)
	}
	g.rt = rt
	env, mounts := containers.FromEnv(g.env)
	c, err := rt.Start(ctx, containers.Spec{Name: "gateway", Image: g.cfg.Image, Env: env, ReadOnly: mounts,
		ReadWrite: []string{g.confDir}, NetworkMode: "host", Log: g.log})
	if err != nil {
		return fmt.Errorf("starting gateway %s: %w", g.cfg.Name, err)
	}
	g.proc = c
	if g.pid, err = c.Pid(ctx); err != nil {
		return err
	}
	g.env = append(g.env, ContainerEnv+"="+c.Name)
	return nil
}

// CheckImage fails early, before any apiserver starts, when the image cannot run here.
func CheckImage(ctx context.Context, image string) error {
	rt, err := containers.Connect(ctx)
	if err != nil {
		return fmt.Errorf("image %s: %w", image, err)
	}
	defer rt.Close()
	return rt.RequireImage(ctx, image)
}
