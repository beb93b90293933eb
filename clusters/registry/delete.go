package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
)

// Delete stops the named cluster and removes everything it made: a supervised cluster by
// SIGTERM to its supervisor (SIGKILL after timeout; its processes die with it), a lasting
// one through its provider, also when its record is gone but the provider still has it.
// ErrNoCluster when there is none of that name.
func Delete(ctx context.Context, name string, timeout time.Duration) error {
	if _, err := os.Stat(ClusterDir(name)); errors.Is(err, os.ErrNotExist) {
		// A lasting cluster whose record is gone: still ours to remove.
		for _, p := range clusters.Providers() {
			if p.Lasting == nil {
				continue
			}
			if names, err := p.Lasting.Names(); err == nil && slices.Contains(names, name) {
				dir, err := os.MkdirTemp("", "skewcheck-delete-")
				if err != nil {
					return err
				}
				return p.Lasting.Remove(ctx, name, dir)
			}
		}
		return ErrNoCluster
	}
	if r, err := Read(name); err == nil {
		if l := lasting(r.Provider); l != nil {
			if err := l.Remove(ctx, name, filepath.Join(ClusterDir(name), r.Provider)); err != nil {
				return err
			}
			return Remove(name)
		}
	}
	if pid := Supervisor(name); pid != 0 {
		syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(timeout)
		for Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if Alive(pid) {
			// Its apiservers die with it (parent-death signal).
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err := Remove(name); err != nil {
		return fmt.Errorf("removing the directory of cluster %q: %w", name, err)
	}
	return nil
}
