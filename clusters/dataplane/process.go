package dataplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/clusters/netns"
)

// procHandle is the dataplane's process on the node. It runs in a process group of its own
// and dies with the harness (Pdeathsig).
type procHandle struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	mu   sync.Mutex
	err  error
}

func startProcess(node *netns.Host, p Process, logPath string) (*procHandle, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := node.Command(context.Background(), p.Argv[0], p.Argv[1:]...)
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	h := &procHandle{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		h.mu.Lock()
		h.err = err
		h.mu.Unlock()
		close(h.done)
	}()
	return h, nil
}

// exited reports whether the process has ended, and how.
func (h *procHandle) exited() (bool, string) {
	select {
	case <-h.done:
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.err == nil {
			return true, "exit status 0"
		}
		return true, h.err.Error()
	default:
		return false, ""
	}
}

// stop sends SIGTERM to the process group, and SIGKILL after grace.
func (h *procHandle) stop(grace time.Duration) error {
	defer h.log.Close()
	if ok, _ := h.exited(); ok {
		return nil
	}
	pgid := h.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-h.done:
		return nil
	case <-time.After(grace):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-h.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("the dataplane (pid %d) did not exit after SIGKILL", pgid)
	}
}
