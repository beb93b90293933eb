package local

import (
	"context"
	"fmt"
	"github.com/skewcheck/skewcheck/clusters/node"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/internal/logtail"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/pki"
)

// State is where a server's process is.
type State string

const (
	Running State = "running"
	Frozen  State = "frozen"
	Stopped State = "stopped"
)

// Server is one kube-apiserver host of a local cluster.
type Server struct {
	Name     string // apiserver-1, apiserver-2, ...
	Hostname string // its own hostname, so it has its own identity lease
	IP       string // its own loopback address
	Port     int
	Dir      string
	Version  string // resolved, e.g. v1.36.3
	Binary   string
	Spec     clusters.ServerSpec
	Serving  pki.Pair
	// Certs are the certificate files it reads (certfiles.go), for certificate faults.
	Certs node.CertFiles
	// PeerPath is the forwarder peers reach this server through, if the cluster has them.
	PeerPath *node.PeerPath
	// Cgroup is the cgroup v2 the process runs in; nil where the machine has none.
	Cgroup *node.Cgroup
	// NetNS is the path of the server's own network namespace (/proc/<pid>/ns/net), set by
	// hosts that give each server one (containers: its pod's); empty where it shares this
	// machine's. Packet faults on its own traffic go there.
	NetNS string

	cluster *Cluster
	mu      sync.Mutex
	proc    Proc
	exited  chan struct{}
	state   State
	started time.Time
}

// URL is the server's own endpoint.
func (s *Server) URL() string { return fmt.Sprintf("https://%s:%d", s.IP, s.Port) }

// Log is the path of the server's stdout and stderr.
func (s *Server) Log() string { return filepath.Join(s.Dir, "kube-apiserver.log") }

// AuditLog is the path of the server's audit log (JSON lines, Metadata level).
func (s *Server) AuditLog() string { return filepath.Join(s.Dir, "audit.log") }

// IncomingPeerPath is the forwarder peers reach this server through, or nil: the
// capability network faults on the path act on (scenarios/faults).
func (s *Server) IncomingPeerPath() *node.PeerPath { return s.PeerPath }

// PeerDialer is the server as the dialer of its peers: an apiserver that dials them from
// sockets of its own (its network namespace, or its cgroup), which an exact partition acts on.
func (s *Server) PeerDialer() *node.Dialer {
	return &node.Dialer{Name: s.Name, IP: s.IP, Port: s.Port, PeerAdvertise: s.Spec.PeerAdvertise, NetNS: s.NetNS, Cgroup: s.Cgroup}
}

// PeerProxy reports whether this server runs with the mixed version proxy on.
func (s *Server) PeerProxy() bool { return peerProxyEnabled(s.Version, s.Spec) }

// State reports whether the process is running, frozen or stopped.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Pid is the process id, 0 when stopped.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.state == Stopped {
		return 0
	}
	return s.proc.Pid()
}

// Start runs the server's process and waits until its /readyz answers 200. It does not wait
// for convergence of the proxy: Cluster.WaitConverged does.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.state != Stopped {
		s.mu.Unlock()
		return fmt.Errorf("%s is %s: stop it before starting it again", s.Name, s.state)
	}
	logf, err := os.OpenFile(s.Log(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.mu.Unlock()
		return fmt.Errorf("opening the log of %s: %w", s.Name, err)
	}
	fmt.Fprintf(logf, "==== skewcheck: starting %s %s as host %s at %s\n", s.Name, s.DescribeVersion(), s.Hostname, time.Now().Format(time.RFC3339))
	argv := append([]string{s.Binary}, apiserverFlags(s.cluster, s)...)
	proc, err := s.cluster.hosts.StartServer(ctx, s, argv, logf)
	if err != nil {
		logf.Close()
		s.mu.Unlock()
		return err
	}
	exited := make(chan struct{})
	s.proc, s.exited, s.state, s.started = proc, exited, Running, time.Now()
	s.mu.Unlock()
	go func() {
		proc.Wait()
		logf.Close()
		s.mu.Lock()
		if s.proc == proc {
			s.state = Stopped
		}
		s.mu.Unlock()
		close(exited)
	}()
	if err := s.waitReady(ctx, exited); err != nil {
		s.Kill()
		return err
	}
	return nil
}

// waitReady polls /readyz until 200, the process exits, or ctx ends.
func (s *Server) waitReady(ctx context.Context, exited <-chan struct{}) error {
	client := s.cluster.anonHTTP
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.Get(s.URL() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-exited:
			why := ""
			if known := knownCrash(s.Version, s.Log()); known != "" {
				why = "\n" + known
			}
			return fmt.Errorf("%s (%s) exited before it was ready; its log %s ends with:\n%s%s", s.Name, s.Version, s.Log(), logtail.Tail(s.Log(), 15), why)
		case <-ctx.Done():
			return fmt.Errorf("%s (%s) was not ready at %s/readyz within the deadline (%v); its log %s ends with:\n%s",
				s.Name, s.Version, s.URL(), ctx.Err(), s.Log(), logtail.Tail(s.Log(), 15))
		case <-tick.C:
		}
	}
}

// signal sends sig to the running process.
func (s *Server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.state == Stopped {
		return fmt.Errorf("%s is not running", s.Name)
	}
	if err := s.proc.Signal(sig); err != nil {
		return fmt.Errorf("sending %v to %s (pid %d): %w", sig, s.Name, s.proc.Pid(), err)
	}
	switch sig {
	case syscall.SIGSTOP:
		s.state = Frozen
	case syscall.SIGCONT:
		s.state = Running
	}
	return nil
}

// Stop is a graceful stop (SIGTERM): a 1.35+ server deletes its identity lease, every server
// removes its endpoint lease. After timeout it escalates to SIGKILL.
func (s *Server) Stop(timeout time.Duration) error {
	if s.State() == Stopped {
		return nil
	}
	s.signal(syscall.SIGCONT) // a frozen process cannot act on SIGTERM
	if err := s.signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.exitedChan():
		return nil
	case <-time.After(timeout):
		s.Kill()
		return fmt.Errorf("%s did not stop within %v of SIGTERM and was killed", s.Name, timeout)
	}
}

// Kill is a crash (SIGKILL): the identity lease stays behind until it expires.
func (s *Server) Kill() error {
	if s.State() == Stopped {
		return nil
	}
	if err := s.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-s.exitedChan()
	return nil
}

// Freeze stops the process where it is (SIGSTOP): connections stay open, nothing answers.
func (s *Server) Freeze() error { return s.signal(syscall.SIGSTOP) }

// Thaw lets a frozen process go on (SIGCONT).
func (s *Server) Thaw() error { return s.signal(syscall.SIGCONT) }

// Restart stops the server gracefully and starts it again at version (one upgrade or
// downgrade step; "" keeps the version). Same host, address, certificates and data.
func (s *Server) Restart(ctx context.Context, version string) error {
	if err := s.Stop(s.cluster.cfg.StopTimeout); err != nil {
		if s.State() != Stopped {
			return err
		}
		// Stopped all the same, by force: worth saying, not worth abandoning the step.
		fmt.Fprintf(s.cluster.cfg.Progress, "warning: %v\n", err)
	}
	if version != "" {
		resolved, binary, err := s.cluster.binaryFor(ctx, version)
		if err != nil {
			return err
		}
		if s.Spec.EmulatedVersion != "" {
			if err := CheckEmulation(resolved, s.Spec.EmulatedVersion); err != nil {
				return fmt.Errorf("restarting %s at %s: %w", s.Name, resolved, err)
			}
		}
		s.mu.Lock()
		s.Version, s.Binary, s.Spec.Version = resolved, binary, version
		s.mu.Unlock()
	}
	return s.Start(ctx)
}

func (s *Server) exitedChan() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.exited
}
