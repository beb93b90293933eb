package local

import (
	"context"
	"os"
	"syscall"
)

// Hosts is where a cluster's etcd and apiservers run. The default is processes on this
// machine (processHosts): each apiserver its own UTS namespace and loopback address, etcd
// embedded. clusters/containers/cluster runs each in its own container on a Docker
// network. Everything else of a cluster (certificates, flags, kubeconfig, convergence,
// the Node operations, restarts at another version) is the same whatever the hosts, so the
// suites and scenarios never ask which they run on.
type Hosts interface {
	// Kind names the hosts in messages and reports: "local", "containers".
	Kind() string
	// Place gives server i (from 0) its address and hostname, before its certificate is
	// issued with them.
	Place(i int, s *Server) error
	// HarnessAddress is address number host (1 to 254) of the cluster's network, made
	// this machine's, for servers the harness runs in front of or between the apiservers
	// (a peer path's forwarder at 40+i, the reference proxies and sidecars at 30+i, a
	// gateway at 20, an aggregated API's server at 60): the apiservers and the harness both reach it.
	HarnessAddress(host int) (string, error)
	// StartEtcd starts etcd, keeping its data under dir, and returns its client URL.
	StartEtcd(ctx context.Context, dir string) (string, error)
	// StartServer starts argv (the binary and kube-apiserver's flags) as server s, with its
	// output appended to log; it returns once the server's process runs.
	StartServer(ctx context.Context, s *Server, argv []string, log *os.File) (Proc, error)
	// Close stops etcd and releases what the hosts hold, once every server has stopped.
	Close() error
}

// Proc is a running apiserver.
type Proc interface {
	// Signal delivers SIGTERM (a graceful stop), SIGKILL (a crash), SIGSTOP (a freeze)
	// or SIGCONT (a thaw).
	Signal(sig syscall.Signal) error
	// Wait returns once the server has exited and is gone.
	Wait() error
	// Pid is its process on this machine.
	Pid() int
}

// Disconnector are hosts that can cut a server off the cluster's network and put it back
// at the same address: a partition of the whole server, as when its machine's link fails
// (containers: docker network disconnect).
type Disconnector interface {
	Disconnect(ctx context.Context, s *Server) error
	Reconnect(ctx context.Context, s *Server) error
}

// Disconnector is the cluster's hosts when they can cut servers off, else nil.
func (c *Cluster) Disconnector() Disconnector {
	d, _ := c.hosts.(Disconnector)
	return d
}
