package dataplane

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/netns"
)

// Image is a vendor's dataplane as a container image in the local Docker engine (never
// pulled), with the environment a Command gets.
//
// It must run in the node's network namespace, as a command does, and Docker cannot put a
// container into a namespace it did not make: its network modes are a network, host, none
// or another container's. So the node is a container: a holder (images.Holder, like a
// pod's pause container) is started with no network, skewcheck wires the holder's
// namespace into the topology as the node (the veth to the switch, the address, the route
// to the load balancers, forwarding on, the bridge to the apiserver on 127.0.0.1:6443),
// and only then the dataplane's container starts, joining it (network mode
// container:<holder>): from its first instruction it sees the node's interfaces, addresses
// and /etc/hosts (the holder's, with the load balancers' names), exactly what the command
// sees. Host networking would put it in this machine's own namespace, where it would
// program the machine's netfilter and find none of the topology.
//
// The dataplane's container gets NET_ADMIN and NET_RAW, what programming netfilter and
// routes needs. Not --privileged, as kube-proxy's DaemonSet has it: that asks for every
// capability, and an engine whose own bounding set lacks one refuses to start the container
// (seen here: CAP_SYS_RESOURCE). Network sysctls that need setting are set by skewcheck on
// the node (forwarding). Its directory ($SKEWCHECK_DIR, with the kubeconfig) is mounted
// read-write at the same path.
type Image struct {
	Label string // the name in reports; "image" when empty
	Ref   string
}

func (i Image) Name() string {
	if i.Label != "" {
		return i.Label
	}
	return "image"
}

func (i Image) Unsupported() string { return "" }
func (i Image) Release() string     { return "" }

func (i Image) Process(_ context.Context, n NodeInfo) (Process, error) {
	return Process{Env: contractEnv(n)}, nil
}

// connectEngine connects to the Docker engine that has the dataplane's image.
func (d *Dataplane) connectEngine(ctx context.Context, img Image) error {
	rt, err := containers.Connect(ctx)
	if err != nil {
		return fmt.Errorf("dataplane image %s: %w", img.Ref, err)
	}
	d.rt = rt
	return rt.RequireImage(ctx, img.Ref)
}

// startNode starts the holder of the node's namespace and adopts that namespace.
func (d *Dataplane) startNode(ctx context.Context, img Image) (*netns.Host, error) {
	if err := d.connectEngine(ctx, img); err != nil {
		return nil, err
	}
	rt := d.rt
	holder, err := images.Holder(ctx, rt, d.cfg.Progress)
	if err != nil {
		return nil, fmt.Errorf("building the image that holds the node's network namespace: %w", err)
	}
	if d.holder, err = rt.Start(ctx, containers.Spec{Name: "dataplane-node", Image: holder, NetworkMode: "none",
		Hostname: d.cfg.NodeName, ExtraHosts: lbHostEntries(), Log: d.Log() + ".node"}); err != nil {
		return nil, fmt.Errorf("starting the node's container: %w", err)
	}
	pid, err := d.holder.Pid(ctx)
	if err != nil {
		return nil, err
	}
	if pid == 0 {
		_, how := d.holder.Exited()
		return nil, fmt.Errorf("the node's container %s is not running (%s)", d.holder.Name, how)
	}
	d.nodeContainer = d.holder.Name
	return netns.Adopt(d.holder.Name, pid)
}

// startImage starts the dataplane's container in the node's namespace.
func (d *Dataplane) startImage(ctx context.Context, img Image, p Process) (running, error) {
	env, _ := containers.FromEnv(p.Env)
	c, err := d.rt.Start(ctx, containers.Spec{Name: "dataplane", Image: img.Ref, Env: env, ReadWrite: []string{d.cfg.Dir},
		NetworkMode: "container:" + d.nodeContainer, CapAdd: []string{"NET_ADMIN", "NET_RAW"}, Log: d.Log()})
	if err != nil {
		return nil, fmt.Errorf("starting dataplane %s: %w", img.Name(), err)
	}
	return c, nil
}
