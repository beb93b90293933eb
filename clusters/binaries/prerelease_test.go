package binaries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Prereleases as users write them (-alpha.N, -beta.N, -rc.N, with or without the v) are
// exact versions: resolved as they are, and never chosen for a minor or for latest.
func TestResolvePrereleases(t *testing.T) {
	r := fakeResolver(t, append(sampleVersions, "v1.37.2", "v1.38.0-alpha.1", "v1.38.0-beta.0", "v1.38.0-rc.0")...)
	for in, want := range map[string]string{
		"v1.38.0-beta.0": "v1.38.0-beta.0", "1.38.0-beta.0": "v1.38.0-beta.0", " v1.38.0-beta.0 ": "v1.38.0-beta.0",
		"v1.38.0-alpha.1": "v1.38.0-alpha.1", "1.38.0-rc.0": "v1.38.0-rc.0",
		"latest": "v1.37.2", "1.37": "v1.37.2",
	} {
		if got, err := r.resolve(context.Background(), in, "Kubernetes"); err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
		if strings.Contains(in, "-") {
			if got, ok := exactVersion(in); !ok || got != want {
				t.Errorf("exactVersion(%q) = %q, %v: a prerelease is exact and needs no listing", in, got, ok)
			}
		}
	}
	if _, err := r.resolve(context.Background(), "1.38", "Kubernetes"); err == nil ||
		!strings.Contains(err.Error(), "only prereleases: v1.38.0-alpha.1, v1.38.0-beta.0, v1.38.0-rc.0") {
		t.Errorf("resolve(1.38) = %v, want the prereleases named and none chosen", err)
	}
	if stg, err := stagingVersion("v1.38.0-beta.0"); err != nil || stg != "v0.38.0-beta.0" {
		t.Errorf("stagingVersion = %q, %v", stg, err)
	}
}

// A prerelease has a cache key of its own, offline cache hits, and its build directories
// are not the release's (nor the release's its).
func TestPrereleaseCache(t *testing.T) {
	cache := t.TempDir()
	if got, want := binPath(cache, KubeAPIServer, "v1.38.0-beta.0"), filepath.Join(cache, "bin", "kube-apiserver", "v1.38.0-beta.0", "kube-apiserver"); got != want {
		t.Errorf("binPath = %s, want %s", got, want)
	}
	writeFakeBinary(t, binPath(cache, KubeAPIServer, "v1.38.0-beta.0"), "v1.38.0-beta.0")
	e := testEnsurer(t)
	e.resolver.list = func(context.Context) ([]string, error) {
		t.Error("unexpected version listing")
		return nil, os.ErrNotExist
	}
	for _, v := range []string{"v1.38.0-beta.0", "1.38.0-beta.0"} {
		if got, err := e.ensure(context.Background(), KubeAPIServer, v, Options{CacheDir: cache}); err != nil || got != binPath(cache, KubeAPIServer, "v1.38.0-beta.0") {
			t.Errorf("ensure(%s) = %q, %v", v, got, err)
		}
	}

	beta := filepath.Join(cache, "build", buildDirPrefix(KubeAPIServer, "v1.38.0-beta.0")+"123")
	release := filepath.Join(cache, "build", buildDirPrefix(KubeAPIServer, "v1.38.0")+"456")
	for _, d := range []string{beta, release} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(cache, KubeAPIServer, "v1.38.0")
	if _, err := os.Stat(beta); err != nil {
		t.Errorf("cleaning v1.38.0 removed the prerelease's build directory: %v", err)
	}
	if _, err := os.Stat(release); err == nil {
		t.Errorf("cleaning v1.38.0 left its own build directory")
	}
	removeStale(cache, KubeAPIServer, "v1.38.0-beta.0")
	if _, err := os.Stat(beta); err == nil {
		t.Errorf("cleaning v1.38.0-beta.0 left its build directory")
	}
}

// The wrapper of a prerelease points the staging modules at their prerelease, and stamps it.
func TestBuildPrerelease(t *testing.T) {
	out, err := wrapperGoMod([]byte("module k8s.io/kubernetes\n\ngo 1.27.0\n\ngodebug default=go1.27\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n"), "v1.38.0-beta.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go 1.27.0\n", "require k8s.io/kubernetes v1.38.0-beta.0\n", "k8s.io/api => k8s.io/api v0.38.0-beta.0\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("wrapper go.mod lacks %q:\n%s", want, out)
		}
	}
	if f := versionLDFlags("v1.38.0-beta.0", time.Time{}, ""); !strings.Contains(f, "gitVersion=v1.38.0-beta.0 ") || !strings.Contains(f, "gitMinor=38 ") {
		t.Errorf("ldflags %s", f)
	}
}
