package binaries

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBuildRealAPIServer gets a real kube-apiserver v1.36.3 through Ensure
// with the default cache: the first run builds it (about 4 minutes on 2
// cores), later runs are cache hits that check the cached binary still works.
func TestBuildRealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kube-apiserver (minutes) unless cached; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	path, err := Ensure(ctx, KubeAPIServer, "v1.36.3", Options{Progress: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v: %s", path, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "Kubernetes v1.36.3" {
		t.Fatalf("%s --version = %q, want %q", path, got, "Kubernetes v1.36.3")
	}
	t.Logf("%s: %s", path, out)
}
