package gateway

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ApplyStatus is the outcome of the last configuration load, written to the status file
// after every load. It lets whoever wrote the documents wait until they are in effect
// (WaitApplied, `skewcheck reference gateway wait`), without a control plane: the
// fingerprint names exactly which contents of the directory were loaded.
type ApplyStatus struct {
	// Fingerprint is the SHA-256 of the configuration files (names and contents).
	Fingerprint string    `json:"fingerprint"`
	Applied     bool      `json:"applied"`
	Clusters    []string  `json:"clusters,omitempty"`
	Error       string    `json:"error,omitempty"`
	Time        time.Time `json:"time"`
}

// DefaultStatusFile is where a gateway reading dir reports, unless told otherwise.
func DefaultStatusFile(dir string) string { return filepath.Join(dir, ".gateway-status.json") }

func (g *Gateway) writeApplyStatus(s ApplyStatus) {
	s.Time = time.Now().UTC()
	b, _ := json.MarshalIndent(s, "", "  ")
	tmp := g.cfg.StatusFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err == nil {
		err = os.Rename(tmp, g.cfg.StatusFile)
		if err != nil {
			g.errorLog.Printf("writing the status file %s: %v", g.cfg.StatusFile, err)
		}
	}
}

// WaitApplied waits until the gateway reading dir has loaded what dir holds now: nil
// when it applied it, an error with the gateway's reasons when it refused it, or when
// ctx ends first.
func WaitApplied(ctx context.Context, dir, statusFile string) error {
	if statusFile == "" {
		statusFile = DefaultStatusFile(dir)
	}
	_, sum, err := snapshotDir(dir)
	if err != nil {
		return err
	}
	want := hex.EncodeToString(sum[:])
	for {
		var s ApplyStatus
		b, err := os.ReadFile(statusFile)
		if err == nil && json.Unmarshal(b, &s) == nil && s.Fingerprint == want {
			if s.Applied {
				return nil
			}
			return errors.New(s.Error)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the gateway did not load the configuration in %s (fingerprint %.12s) before the deadline; its status file %s says %q: is a gateway running with --config-dir %s?",
				dir, want, statusFile, b, dir)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
