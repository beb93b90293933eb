package cluster

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// imageRef names the image of one binary by what it is and its content, so an image is
// built once per binary and a rebuilt binary never runs from a stale image.
func imageRef(repo, binary string) (string, error) {
	f, err := os.Open(binary)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", binary, err)
	}
	return fmt.Sprintf("skewcheck/%s:%x", repo, h.Sum(nil)[:6]), nil
}

// apiserverRepo is the image name of a cached kube-apiserver: its version directory
// (…/kube-apiserver/v1.36.3/kube-apiserver) gives kube-apiserver-v1.36.3.
func apiserverRepo(binary string) string {
	v := filepath.Base(filepath.Dir(binary))
	if !strings.HasPrefix(v, "v") {
		return "kube-apiserver"
	}
	return "kube-apiserver-" + v
}
