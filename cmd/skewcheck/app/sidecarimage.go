package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters/sidecar"
)

// prepareSidecarImage checks, before any apiserver starts, that --sidecar-image can run,
// and sends the sidecars' logs to the report directory: a container's output lives in the
// engine only as long as the container, which the run removes.
func prepareSidecarImage(ctx context.Context, f *conformanceFlags) error {
	if f.sidecar.Image == "" {
		return nil
	}
	if f.sidecar.Shell != "" {
		return fmt.Errorf("--sidecar-command and --sidecar-image both name your proxy: give one")
	}
	if err := sidecar.CheckImage(ctx, f.sidecar.Image); err != nil {
		return fmt.Errorf("--sidecar-image: %w", err)
	}
	f.sidecar.Dir = filepath.Join(f.run.ReportDir, "sidecar")
	return os.MkdirAll(f.sidecar.Dir, 0o755)
}
