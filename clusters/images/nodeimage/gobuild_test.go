package nodeimage

import (
	"context"
	"io"
	"os"
	"sync"
	"testing"
)

// Builders side by side (make test's packages on a fresh machine) all get the one binary.
// The race the lock ends showed with etcd's minute-long build ("rename .../etcd.tmp: no
// such file or directory" when two builds wrote the same temporary file); a program this
// small builds too fast to show it reliably, so this checks the outcome, not the timing.
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
