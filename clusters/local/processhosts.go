package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/skewcheck/skewcheck/clusters"
)

// processHosts runs etcd embedded in this process and every apiserver as a process of this
// machine with its own hostname and loopback address (host.go, network.go).
type processHosts struct {
	slot *slot
	etcd *embed.Etcd
}

func newProcessHosts(want int) (*processHosts, error) {
	s, err := claimSlot(want)
	if err != nil {
		return nil, err
	}
	return &processHosts{slot: s}, nil
}

func (h *processHosts) Kind() string { return "local" }

func (h *processHosts) Place(i int, s *Server) error {
	s.IP = h.slot.ip(10 + i + 1)
	s.Hostname = fmt.Sprintf("%s-%s", s.cluster.Name, s.Name)
	return checkPortFree(clusters.ServerPort, s.IP, s.Port)
}

// HarnessAddress is on the cluster's loopback block, which is all this machine's already.
func (h *processHosts) HarnessAddress(host int) (string, error) { return h.slot.ip(host), nil }

func (h *processHosts) StartEtcd(_ context.Context, dir string) (string, error) {
	e, url, err := StartEtcd(dir, h.slot.ip(etcdHost), 30*time.Second)
	h.etcd = e
	return url, err
}

func (h *processHosts) StartServer(_ context.Context, s *Server, argv []string, log *os.File) (Proc, error) {
	if err := checkPortFree(clusters.ServerPort, s.IP, s.Port); err != nil {
		return nil, err
	}
	cmd := hostCommand(s.Hostname, s.Cgroup, argv)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", s.Name, s.Binary, err)
	}
	return hostProc{cmd}, nil
}

func (h *processHosts) Close() error {
	if h.etcd != nil {
		h.etcd.Close()
	}
	h.slot.release()
	return nil
}

// hostProc is an apiserver process of this machine.
type hostProc struct{ cmd *exec.Cmd }

func (p hostProc) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }
func (p hostProc) Wait() error                     { return p.cmd.Wait() }
func (p hostProc) Pid() int                        { return p.cmd.Process.Pid }
