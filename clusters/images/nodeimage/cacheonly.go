package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// requireCached is Build's first step when the binaries' source is the cache alone
// (binaries.SourceCache: never build or download): everything a node image is made from
// must be cached already, or Build refuses before it starts anything. Without it, Build
// started debootstrap (a work folder and a lock in the cache) and found the missing
// binaries only afterwards.
func requireCached(ctx context.Context, cache, version string, bin binaries.Options) error {
	rootfs := filepath.Join(cache, "kind", "rootfs-"+Suite+"-"+rootfsKey()+".tar")
	missing := ""
	if _, err := os.Stat(rootfs); err != nil {
		missing = "the Debian " + Suite + " root filesystem (" + rootfs + ")"
	}
	for _, prog := range []goProgram{etcdProgram, pauseProgram} {
		if _, err := os.Stat(filepath.Join(cache, "bin", prog.name, prog.version, prog.name)); err != nil && missing == "" {
			missing = prog.name + " " + prog.version
		}
	}
	if missing != "" {
		return fmt.Errorf("the node image of %s needs %s, which is not cached, and the binaries' source is the cache alone: drop --source cache (or give --source auto) to make it, once", version, missing)
	}
	for _, c := range nodeBinaries {
		if _, err := binaries.Ensure(ctx, c, version, bin); err != nil {
			return err
		}
	}
	return nil
}
