package binaries

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// envCache overrides where built and downloaded binaries are kept.
const envCache = "SKEWCHECK_CACHE"

// DefaultCacheDir is $SKEWCHECK_CACHE, else $XDG_CACHE_HOME/skewcheck, else
// ~/.cache/skewcheck. It is never inside the repository: the binaries are
// ~150 MB each and must survive a git clean.
func DefaultCacheDir() string {
	if d := os.Getenv(envCache); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs // absolute, so running commands in other directories cannot move it
		}
		return d
	}
	// The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
	if d := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "skewcheck")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".cache", "skewcheck")
	}
	return filepath.Join(os.TempDir(), "skewcheck-cache")
}

// binPath is where a component's binary lives in the cache. One directory per
// version keeps the file name equal to the component, as the binary expects
// in messages and as users expect when they look.
func binPath(cacheDir string, c Component, version string) string {
	return filepath.Join(cacheDir, "bin", string(c), version, string(c))
}

func lockPath(cacheDir string, c Component, version string) string {
	return filepath.Join(cacheDir, "locks", fmt.Sprintf("%s-%s.lock", c, version))
}

// lockPoll is how often a waiting process retries the lock. Polling instead of
// a blocking flock lets a cancelled context stop the wait.
var lockPoll = 200 * time.Millisecond

// lockWaitReport is how often a waiting process says it is still waiting.
var lockWaitReport = 30 * time.Second

// lockFile takes an exclusive flock on path, so that of several processes (or
// goroutines: flock locks belong to the open file, not the process) wanting
// the same binary only one builds it. waiting is called when the lock is held
// by someone else, and again every lockWaitReport while that lasts. The lock
// file is never deleted: deleting it would let a third process lock a new
// file while the second still holds the old one.
func lockFile(ctx context.Context, path string, waiting func(waited time.Duration)) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("creating lock directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	fd := int(f.Fd())
	start := time.Now()
	var reported time.Duration = -1
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = unix.Flock(fd, unix.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		waited := time.Since(start)
		if waiting != nil && (reported < 0 || waited-reported >= lockWaitReport) {
			waiting(waited)
			reported = waited
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}

// installAtomic puts a new executable at dest such that no reader ever sees a
// partial file, even if this process dies: fill writes a temporary file in
// dest's directory (same file system, so rename is atomic), which is then made
// executable, synced to disk and renamed over dest. fill receives a path that
// does not exist yet, because go build refuses to overwrite a file that is
// not an executable. On any error nothing is installed.
func installAtomic(dest string, fill func(tmp string) error) (err error) {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	f, err := os.CreateTemp(dir, tmpPrefix(dest))
	if err != nil {
		return fmt.Errorf("creating temporary file in cache: %w", err)
	}
	tmp := f.Name()
	_ = f.Close()
	_ = os.Remove(tmp)
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := syncPath(tmp); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("installing %s: %w", dest, err)
	}
	// Sync the directory too, so the rename itself survives a crash.
	_ = syncPath(dir)
	return nil
}

func tmpPrefix(dest string) string { return "." + filepath.Base(dest) + ".tmp-" }

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// removeStale deletes what a killed process may have left behind for this
// binary: temporary files next to it and build directories. It must only run
// while holding the binary's lock, when nobody else can be using them.
func removeStale(cacheDir string, c Component, version string) {
	dest := binPath(cacheDir, c, version)
	if tmps, err := filepath.Glob(filepath.Join(filepath.Dir(dest), tmpPrefix(dest)+"*")); err == nil {
		for _, t := range tmps {
			_ = os.Remove(t)
		}
	}
	if dirs, err := filepath.Glob(filepath.Join(cacheDir, "build", buildDirPrefix(c, version)+"*")); err == nil {
		for _, d := range dirs {
			// The prefix of v1.36.3 also matches v1.36.3-rc.0's directories; the
			// random suffix never contains a dash, so check what follows.
			if !strings.Contains(strings.TrimPrefix(filepath.Base(d), buildDirPrefix(c, version)), "-") {
				_ = os.RemoveAll(d)
			}
		}
	}
}

// checkExecutable says why path cannot be run, or nil.
func checkExecutable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", path)
		}
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, not a binary", path)
	}
	if st.Mode()&0o111 == 0 || unix.Access(path, unix.X_OK) != nil {
		return fmt.Errorf("%s is not executable (chmod +x %s)", path, path)
	}
	return nil
}
