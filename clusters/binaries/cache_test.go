package binaries

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(envCache, "/somewhere/cache")
	if got := DefaultCacheDir(); got != "/somewhere/cache" {
		t.Errorf("with $%s: %s", envCache, got)
	}
	t.Setenv(envCache, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got := DefaultCacheDir(); got != "/xdg/skewcheck" {
		t.Errorf("with $XDG_CACHE_HOME: %s", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultCacheDir(); got != "/home/u/.cache/skewcheck" {
		t.Errorf("with $HOME: %s", got)
	}
}

func TestInstallAtomicLeavesNothingOnError(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "bin", "kube-apiserver")
	boom := errors.New("boom")
	err := installAtomic(dest, func(tmp string) error {
		if err := os.WriteFile(tmp, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dest)); len(entries) != 0 {
		t.Fatalf("left files behind: %v", entries)
	}
	if err := installAtomic(dest, func(tmp string) error { return os.WriteFile(tmp, []byte("ok"), 0o600) }); err != nil {
		t.Fatal(err)
	}
	if err := checkExecutable(dest); err != nil {
		t.Fatal(err)
	}
}

// TestLockAcrossProcesses holds the lock in a child process (this test binary
// re-executed) and checks that this process waits, says so, and gets the lock
// once the child lets go.
func TestLockAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "x.lock")
	child := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	child.Env = append(os.Environ(), "SKEWCHECK_TEST_HOLD_LOCK="+path)
	stdin, _ := child.StdinPipe()
	stdout, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		stdin.Close()
		t.Fatalf("child: %q, %v", line, err)
	}

	waiting := make(chan struct{}, 10)
	got := make(chan error, 1)
	go func() {
		unlock, err := lockFile(context.Background(), path, func(time.Duration) { waiting <- struct{}{} })
		if err == nil {
			unlock()
		}
		got <- err
	}()
	select {
	case <-waiting:
	case err := <-got:
		t.Fatalf("got the lock while the child held it (err %v)", err)
	case <-time.After(10 * time.Second):
		t.Fatal("lockFile neither waited nor returned")
	}
	stdin.Close() // the child releases the lock and exits
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not get the lock after the child exited")
	}
}

func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("SKEWCHECK_TEST_HOLD_LOCK")
	if path == "" {
		t.Skip("helper process for TestLockAcrossProcesses")
	}
	unlock, err := lockFile(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	unlock()
}

func TestLockHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := lockFile(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := lockFile(ctx, path, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want deadline exceeded", err)
	}
}
