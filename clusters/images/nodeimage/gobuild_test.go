package nodeimage

import (
	"context"
	"io"
	"os"
	"sync"
	"testing"
)

// Builders side by side (make test's packages on a fresh machine) wait for one another
// instead of racing on one temporary file: every one of them gets the binary. Before the
// lock, the second rename failed ("rename .../etcd.tmp: no such file or directory").
func TestGoProgramBuiltOnceSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	cache := t.TempDir()
	prog := goProgram{name: "hello", pkg: ".", version: "test-1", source: "package main\n\nfunc main() {}\n"}
	var wg sync.WaitGroup
	outs, errs := make([]string, 3), make([]error, 3)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = ensureGoProgram(context.Background(), cache, prog, newProgress(io.Discard))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("builder %d: %v", i, err)
		}
		if _, err := os.Stat(outs[i]); err != nil || outs[i] != outs[0] {
			t.Errorf("builder %d got %q (%v), want the one binary %q", i, outs[i], err, outs[0])
		}
	}
}
