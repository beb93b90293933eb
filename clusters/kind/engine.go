package kind

import (
	"context"
	"fmt"
	"net"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters/containers"
)

// engine is the Docker engine kind's nodes run in, for what kind's API does not tell:
// published ports, image labels, the host's cgroup version, and the cluster's network.
type engine struct{ c *client.Client }

func connect(ctx context.Context) (*engine, error) {
	c, err := containers.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return &engine{c: c}, nil
}

func (e *engine) close() { e.c.Close() }

// cgroupV1 says whether the engine's host runs cgroup v1, where kubelets from 1.35 must be
// told to start anyway.
func (e *engine) cgroupV1(ctx context.Context) (bool, error) {
	info, err := e.c.Info(ctx, client.InfoOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the Docker engine for its cgroup version: %w", err)
	}
	return info.Info.CgroupVersion == "1", nil
}

// imageLabels returns ref's labels, or ok=false when the engine does not have it.
func (e *engine) imageLabels(ctx context.Context, ref string) (map[string]string, bool, error) {
	r, err := e.c.ImageInspect(ctx, ref)
	if errdefs.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("looking up image %s in the Docker engine: %w", ref, err)
	}
	if r.Config == nil {
		return map[string]string{}, true, nil
	}
	return r.Config.Labels, true, nil
}

// hostPort is the host address where container publishes its TCP port.
func (e *engine) hostPort(ctx context.Context, container string, port int) (string, error) {
	r, err := e.c.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspecting container %s: %w", container, err)
	}
	if r.Container.NetworkSettings != nil {
		for p, bindings := range r.Container.NetworkSettings.Ports {
			if int(p.Num()) == port && p.Proto() == "tcp" && len(bindings) > 0 {
				// kind publishes control-plane ports on 127.0.0.1; an unspecified address
				// is reachable there too.
				ip := "127.0.0.1"
				if a := bindings[0].HostIP; a.IsValid() && !a.IsUnspecified() {
					ip = a.String()
				}
				return net.JoinHostPort(ip, bindings[0].HostPort), nil
			}
		}
	}
	return "", fmt.Errorf("container %s publishes no port for %d/tcp", container, port)
}

// gateway is this machine's IPv4 address on network (its bridge's): the nodes reach this
// machine there.
func (e *engine) gateway(ctx context.Context, network string) (string, error) {
	r, err := e.c.NetworkInspect(ctx, network, client.NetworkInspectOptions{})
	if err != nil {
		return "", fmt.Errorf("inspecting Docker network %s: %w", network, err)
	}
	for _, c := range r.Network.IPAM.Config {
		if c.Gateway.Is4() {
			return c.Gateway.String(), nil
		}
	}
	return "", fmt.Errorf("Docker network %s has no IPv4 gateway (IPAM %+v)", network, r.Network.IPAM.Config)
}

// removeNetwork removes the cluster's own network, if it is there.
func (e *engine) removeNetwork(ctx context.Context, name string) error {
	_, err := e.c.NetworkRemove(ctx, name, client.NetworkRemoveOptions{})
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("removing Docker network %s: %w", name, err)
	}
	return nil
}

// pull pulls ref from its registry, waiting for the whole image.
func (e *engine) pull(ctx context.Context, ref string) error {
	r, err := e.c.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	return r.Wait(ctx)
}

// pid is the process of a running container, whose network namespace is the node's;
// an error when the container is not running.
func (e *engine) pid(ctx context.Context, container string) (int, error) {
	r, err := e.c.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	if err != nil {
		return 0, fmt.Errorf("inspecting node %s: %w", container, err)
	}
	if r.Container.State == nil || r.Container.State.Pid == 0 {
		return 0, fmt.Errorf("node %s has no running process: is it running? (docker ps -a --filter name=%s)", container, container)
	}
	return r.Container.State.Pid, nil
}
