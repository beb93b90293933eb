package containers

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Spec says how to run one container.
type Spec struct {
	// Name is unique in this run; the container is named skewcheck-<pid>-<Name>.
	Name  string
	Image string
	Env   map[string]string
	// Cmd, when set, replaces the image's default arguments.
	Cmd []string
	// ReadOnly and ReadWrite are host paths mounted at the same path, so that paths given
	// in Env mean the same inside the container as outside.
	ReadOnly, ReadWrite []string
	// NetworkMode is Docker's: "host" (the engine host's network namespace), "none",
	// "container:<name>" (another container's); or Network.
	NetworkMode string
	// Network, IP and Aliases put the container on a network of this run at a fixed
	// address, with names other containers resolve.
	Network *Network
	IP      string
	Aliases []string
	// Hostname is the container's host name (its own UTS namespace); ExtraHosts are
	// "name:ip" lines added to its /etc/hosts.
	Hostname   string
	ExtraHosts []string
	// CapAdd are capabilities added to Docker's default set (NET_ADMIN, NET_RAW).
	CapAdd []string
	// Log is the file the container's standard output and error are appended to.
	Log string
}

// Container is a started container.
type Container struct {
	rt   *Runtime
	ctr  testcontainers.Container
	Name string
	done chan struct{} // closed once it has exited and its log is all in the file
	mu   sync.Mutex
	how  string
	// removal happens once, whoever asks first (Stop, Wait).
	removal   sync.Once
	removeErr error
}

// remove removes the container and its anonymous volumes, once.
func (c *Container) remove(ctx context.Context) error {
	c.removal.Do(func() {
		if err := c.ctr.Terminate(ctx); err != nil {
			c.removeErr = fmt.Errorf("removing container %s: %w (remove it with docker rm -f %s)", c.Name, err, c.Name)
		}
	})
	return c.removeErr
}

// Start creates and starts a container from a local image (never pulled).
func (r *Runtime) Start(ctx context.Context, s Spec) (*Container, error) {
	if err := r.RequireImage(ctx, s.Image); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(s.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	name := ContainerName(s.Name)
	req := testcontainers.ContainerRequest{
		Image: s.Image, Name: name, Env: s.Env, Labels: ownerLabels(), Cmd: s.Cmd,
		ConfigModifier: func(c *container.Config) { c.Hostname = s.Hostname },
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.NetworkMode = container.NetworkMode(s.NetworkMode)
			hc.ExtraHosts, hc.CapAdd = s.ExtraHosts, s.CapAdd
			for _, p := range s.ReadOnly {
				hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: p, Target: p, ReadOnly: true})
			}
			for _, p := range s.ReadWrite {
				hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: p, Target: p})
			}
		},
	}
	if s.Network != nil {
		s.NetworkMode = s.Network.Name
		req.Networks = []string{s.Network.Name}
		req.EndpointSettingsModifier = func(eps map[string]*network.EndpointSettings) {
			eps[s.Network.Name] = &network.EndpointSettings{NetworkID: s.Network.ID, Aliases: s.Aliases,
				IPAMConfig: &network.EndpointIPAMConfig{IPv4Address: netip.MustParseAddr(s.IP)}}
		}
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: req, Started: true, Logger: tclog.NewNoopLogger()})
	if err != nil {
		log.Close()
		if ctr != nil {
			ctr.Terminate(context.Background())
		}
		if errdefs.IsConflict(err) || strings.Contains(err.Error(), "already in use") {
			return nil, fmt.Errorf("starting container %s from image %s: the name is taken by a container skewcheck did not start in this run: %w "+
				"(remove it with docker rm -f %s if nothing needs it)", name, s.Image, err, name)
		}
		return nil, fmt.Errorf("starting container %s from image %s: %w", name, s.Image, err)
	}
	c := &Container{rt: r, ctr: ctr, Name: name, done: make(chan struct{})}
	go c.watch(log)
	return c, nil
}

// watch copies the container's output to log until the container exits, then records how
// it exited. Docker ends a followed log stream when the container stops, so once done is
// closed the file holds everything the container wrote.
func (c *Container) watch(log *os.File) {
	defer close(c.done)
	defer log.Close()
	ctx, cli, id := context.Background(), c.rt.client(), c.ctr.GetContainerID()
	if rc, err := cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true}); err == nil {
		stdcopy.StdCopy(log, log, rc)
		rc.Close()
	} else {
		fmt.Fprintf(log, "skewcheck: cannot follow the log of container %s: %v\n", c.Name, err)
	}
	w := cli.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	how := ""
	select {
	case res := <-w.Result:
		how = fmt.Sprintf("container %s exited with status %d", c.Name, res.StatusCode)
		if res.Error != nil && res.Error.Message != "" {
			how += ": " + res.Error.Message
		}
	case err := <-w.Error:
		how = fmt.Sprintf("waiting for container %s: %v", c.Name, err)
	}
	c.mu.Lock()
	c.how = how
	c.mu.Unlock()
}

// Pid is the container's first process as this machine sees it, 0 when it is not running.
func (c *Container) Pid(ctx context.Context) (int, error) {
	st, err := c.ctr.State(ctx)
	if err != nil {
		return 0, fmt.Errorf("inspecting container %s: %w", c.Name, err)
	}
	return st.Pid, nil
}

// Exited reports whether the container has ended, and how.
func (c *Container) Exited() (bool, string) {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return true, c.how
	default:
		return false, ""
	}
}

// Stop sends SIGTERM (the image's stop signal) and SIGKILL after grace, or only SIGKILL
// when grace is 0 (a crash: docker stop with no grace would still send SIGTERM first, and a
// proxy that catches it leaves gracefully), then removes the container and its anonymous
// volumes. It works after the run's context is cancelled (Ctrl-C), because cleanup
// happens then.
func (c *Container) Stop(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace+30*time.Second)
	defer cancel()
	var stopErr error
	switch exited, _ := c.Exited(); {
	case exited: // only to remove
	case grace == 0:
		_, stopErr = c.rt.client().ContainerKill(ctx, c.ctr.GetContainerID(), client.ContainerKillOptions{Signal: "KILL"})
	default:
		stopErr = c.ctr.Stop(ctx, &grace)
	}
	select {
	case <-c.done:
	case <-ctx.Done():
	}
	if err := c.remove(ctx); err != nil {
		return err
	}
	if stopErr != nil {
		return fmt.Errorf("stopping container %s: %w", c.Name, stopErr)
	}
	return nil
}
