package pki

import (
	"fmt"
	"os"
	"path/filepath"
)

const (
	// keyFileMode keeps private keys readable by their owner only; kubelet
	// and some tools warn about (or refuse) keys others can read.
	keyFileMode os.FileMode = 0o600
	// certFileMode leaves certificates world-readable: they are public, and
	// the bundle directory (0700) already keeps strangers out.
	certFileMode os.FileMode = 0o644
	// dirMode keeps the whole bundle private to the user running skewcheck.
	dirMode os.FileMode = 0o700
)

// writeFileAtomic writes data to path with mode perm by writing a temporary
// file next to it and renaming it into place. kube-apiserver watches its
// certificate files and reloads them when they change; a reader must never
// see a half-written PEM file, nor a certificate that does not match its key
// for longer than the gap between two renames.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w; check that the directory exists and is writable", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes 0600 files; set the wanted mode explicitly so the
	// umask cannot loosen a key's or tighten a certificate's permissions.
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: set mode %v: %w", path, perm, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: move temporary file into place: %w", path, err)
	}
	return nil
}
