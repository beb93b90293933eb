// Package process runs a helper process a test needs (a dataplane, a vendor's sidecar):
// its own process group, output to a log file, dead with the harness (Pdeathsig), and a
// stop that escalates from SIGTERM to SIGKILL.
package process

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Process is a started command.
type Process struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	mu   sync.Mutex
	err  error
}

// Start starts cmd with its output appended to logPath.
func Start(cmd *exec.Cmd, logPath string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pdeathsig = true, syscall.SIGKILL
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, string) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.err == nil {
			return true, "exit status 0"
		}
		return true, p.err.Error()
	default:
		return false, ""
	}
}

// Kill ends the process group at once (a crash).
func (p *Process) Kill() error { return p.Stop(0) }

// Stop sends SIGTERM to the process group, and SIGKILL after grace.
func (p *Process) Stop(grace time.Duration) error {
	defer p.log.Close()
	if ok, _ := p.Exited(); ok {
		return nil
	}
	pgid := p.cmd.Process.Pid
	if grace > 0 {
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-p.done:
			return nil
		case <-time.After(grace):
		}
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("process %d did not exit after SIGKILL", pgid)
	}
}
