package gateway

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Apply writes docs as the whole configuration (one file, replaced atomically, so the
// gateway never reads half of it) and runs the apply command, which returns once the
// gateway serves by them or says why it refuses them.
func (g *Gateway) Apply(ctx context.Context, docs [][]byte) error {
	var b bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(bytes.TrimSuffix(d, []byte("\n")))
		b.WriteString("\n")
	}
	path := filepath.Join(g.confDir, ConfigFile)
	if err := os.WriteFile(path+".tmp", b.Bytes(), 0o644); err != nil {
		return err
	}
	// The temporary name ends in .tmp, which a gateway reading *.yaml skips.
	if err := os.Rename(path+".tmp", path); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, g.cfg.ApplyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", g.cfg.ApplyShell)
	cmd.Env = append(os.Environ(), g.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("the apply command (%s) failed after %v: %v; its output:\n%s", g.cfg.ApplyShell, time.Since(start).Round(time.Millisecond), err, bytes.TrimSpace(out))
	}
	return nil
}
