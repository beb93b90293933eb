package nodeimage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// With the cache as the only source, a node image whose parts are not cached is refused
// before anything starts: the error names the first missing part and the flag to drop,
// and the cache is left as it was (no work folder, no lock).
func TestCacheOnlyRefusesBeforeWork(t *testing.T) {
	cache := t.TempDir()
	bin := binaries.Options{CacheDir: cache, Source: binaries.SourceCache}
	err := requireCached(context.Background(), cache, "v1.36.3", bin)
	if err == nil || !strings.Contains(err.Error(), "root filesystem") || !strings.Contains(err.Error(), "drop --source cache") {
		t.Fatalf("err = %v, want the missing root filesystem and the flag to drop", err)
	}
	rootfs := filepath.Join(cache, "kind", "rootfs-"+Suite+"-"+rootfsKey()+".tar")
	for _, prog := range []goProgram{etcdProgram, pauseProgram} {
		p := filepath.Join(cache, "bin", prog.name, prog.version, prog.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o755)
	}
	os.MkdirAll(filepath.Dir(rootfs), 0o755)
	os.WriteFile(rootfs, nil, 0o644)
	before := listTree(t, cache)
	err = requireCached(context.Background(), cache, "v1.36.3", bin)
	if err == nil || !strings.Contains(err.Error(), "kube") {
		t.Fatalf("err = %v, want the first missing Kubernetes binary", err)
	}
	if after := listTree(t, cache); after != before {
		t.Errorf("the cache changed:\nbefore %s\nafter  %s", before, after)
	}
}

func listTree(t *testing.T, root string) string {
	t.Helper()
	var out []string
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			out = append(out, strings.TrimPrefix(p, root))
		}
		return nil
	})
	return strings.Join(out, " ")
}
