package app

import (
	"context"
	"fmt"

	"github.com/skewcheck/skewcheck/clusters/sidecar"
)

// prepareSidecarImage checks, before any apiserver starts, that --sidecar-image can run.
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
	return nil
}
