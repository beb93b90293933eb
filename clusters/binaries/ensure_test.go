package binaries

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeFakeBinary writes a script that answers --version like kube-apiserver.
func writeFakeBinary(t *testing.T, path, version string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho Kubernetes "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer collects progress lines from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testEnsurer has a fake proxy listing and steps that fail the test unless replaced.
func testEnsurer(t *testing.T) ensurer {
	return ensurer{
		resolver: fakeResolver(t, sampleVersions...),
		build: func(context.Context, request) error {
			t.Error("unexpected build")
			return errors.New("unexpected build")
		},
		download: func(context.Context, request) error {
			t.Error("unexpected download")
			return errors.New("unexpected download")
		},
	}
}

func TestEnsureCacheHitDoesNotBuild(t *testing.T) {
	cache := t.TempDir()
	want := binPath(cache, KubeAPIServer, "v1.36.3")
	writeFakeBinary(t, want, "v1.36.3")
	e := testEnsurer(t)
	// An exact version must not even list versions: cache hits work offline.
	e.resolver = resolver{list: func(context.Context) ([]string, error) {
		t.Error("unexpected version listing")
		return nil, errors.New("offline")
	}}
	for _, v := range []string{"v1.36.3", "1.36.3"} {
		got, err := e.ensure(context.Background(), KubeAPIServer, v, Options{CacheDir: cache})
		if err != nil || got != want {
			t.Errorf("ensure(%s) = %q, %v; want %q", v, got, err, want)
		}
	}
}

func TestEnsureBuildsAndInstalls(t *testing.T) {
	cache := t.TempDir()
	e := testEnsurer(t)
	e.download = offline
	var builds atomic.Int32
	e.build = func(_ context.Context, r request) error {
		builds.Add(1)
		writeFakeBinary(t, r.out, r.version)
		return nil
	}
	var progress syncBuffer
	// A minor resolves to its newest patch release.
	got, err := e.ensure(context.Background(), KubeAPIServer, "1.36", Options{CacheDir: cache, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if want := binPath(cache, KubeAPIServer, "v1.36.3"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if err := verifyVersion(context.Background(), KubeAPIServer, got, "v1.36.3"); err != nil {
		t.Error(err)
	}
	if !strings.Contains(progress.String(), "building kube-apiserver v1.36.3 from the Go module proxy") {
		t.Errorf("progress does not announce the build:\n%s", progress.String())
	}
	// The second call is a cache hit.
	if _, err := e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
}

// TestEnsureConcurrentCallersBuildOnce starts several Ensure calls for the
// same binary; the build is held until all the others report that they wait
// for it, so the test does not depend on timing.
func TestEnsureConcurrentCallersBuildOnce(t *testing.T) {
	defer func(old time.Duration) { lockPoll = old }(lockPoll)
	lockPoll = 10 * time.Millisecond
	cache := t.TempDir()
	const callers = 4
	var progress syncBuffer
	release := make(chan struct{})
	var builds atomic.Int32
	e := testEnsurer(t)
	e.download = offline
	e.build = func(_ context.Context, r request) error {
		builds.Add(1)
		<-release
		writeFakeBinary(t, r.out, r.version)
		return nil
	}
	var wg sync.WaitGroup
	paths := make([]string, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() {
			paths[i], errs[i] = e.ensure(context.Background(), KubeAPIServer, "v1.35.4", Options{CacheDir: cache, Progress: &progress})
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(progress.String(), "waiting for another process") < callers-1 {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("callers did not wait for each other:\n%s", progress.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || paths[i] != binPath(cache, KubeAPIServer, "v1.35.4") {
			t.Errorf("caller %d: %q, %v", i, paths[i], errs[i])
		}
	}
	if n := builds.Load(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
}

func TestEnsureRejectsWrongVersionBinary(t *testing.T) {
	cache := t.TempDir()
	e := testEnsurer(t)
	e.build = func(_ context.Context, r request) error {
		writeFakeBinary(t, r.out, "v0.0.0-master")
		return nil
	}
	_, err := e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: cache, Source: SourceBuild})
	if err == nil || !strings.Contains(err.Error(), `not "Kubernetes v1.36.3"`) {
		t.Fatalf("got %v", err)
	}
	dir := filepath.Dir(binPath(cache, KubeAPIServer, "v1.36.3"))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("installed something: %v", entries)
	}
}

func TestEnsureSourceCacheNeverBuilds(t *testing.T) {
	_, err := testEnsurer(t).ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: t.TempDir(), Source: SourceCache})
	if err == nil || !strings.Contains(err.Error(), "not in the cache") {
		t.Fatalf("got %v", err)
	}
}

// offline is the download of a machine that cannot resolve dl.k8s.io, as this one.
func offline(context.Context, request) error {
	return errors.New("GET https://dl.k8s.io/...: dial tcp: lookup dl.k8s.io: no such host")
}

// TestEnsureAutoDownloadsFirst: with the network, the official binary (seconds) is taken
// and nothing is built (minutes).
func TestEnsureAutoDownloadsFirst(t *testing.T) {
	cache := t.TempDir()
	e := testEnsurer(t)
	e.download = func(_ context.Context, r request) error {
		writeFakeBinary(t, r.out, r.version)
		return nil
	}
	got, err := e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: cache})
	if err != nil || got != binPath(cache, KubeAPIServer, "v1.36.3") {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestEnsureAutoBuildsWhenOffline: without dl.k8s.io, the build from the Go module proxy.
func TestEnsureAutoBuildsWhenOffline(t *testing.T) {
	cache := t.TempDir()
	e := testEnsurer(t)
	e.download = offline
	e.build = func(_ context.Context, r request) error {
		writeFakeBinary(t, r.out, r.version)
		return nil
	}
	var progress syncBuffer
	got, err := e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: cache, Progress: &progress})
	if err != nil || got != binPath(cache, KubeAPIServer, "v1.36.3") {
		t.Fatalf("got %q, %v", got, err)
	}
	if !strings.Contains(progress.String(), "could not download") {
		t.Errorf("the failed download is not said:\n%s", progress.String())
	}
}

func TestEnsureReportsEveryAttempt(t *testing.T) {
	e := testEnsurer(t)
	e.download = func(context.Context, request) error { return errors.New("GET x: 404 Not Found") }
	// v1.99.0 is not on the (fake) proxy, so the build is not even started.
	_, err := e.ensure(context.Background(), KubeAPIServer, "v1.99.0", Options{CacheDir: t.TempDir()})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"cache:", "build: no kube-apiserver v1.99.0", "newest releases: v1.36.3", "download: GET x: 404", envBinaries} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestEnsureUnknownComponentAndSource(t *testing.T) {
	e := testEnsurer(t)
	if _, err := e.ensure(context.Background(), "kube-dns", "v1.36.3", Options{CacheDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "kube-apiserver") {
		t.Errorf("unknown component: %v", err)
	}
	if _, err := e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: t.TempDir(), Source: "magic"}); err == nil || !strings.Contains(err.Error(), `"magic"`) {
		t.Errorf("unknown source: %v", err)
	}
}

func TestEnsureExplicitPaths(t *testing.T) {
	dir := t.TempDir()
	fromOpts := filepath.Join(dir, "opts-apiserver")
	fromEnv := filepath.Join(dir, "env-apiserver")
	writeFakeBinary(t, fromOpts, "v1.36.3")
	writeFakeBinary(t, fromEnv, "v1.36.3")
	e := testEnsurer(t)
	t.Setenv(envBinaries, "kube-apiserver@1.36.3="+fromEnv+", kube-apiserver@v1.35.4="+fromEnv)
	cache := t.TempDir()

	got, err := e.ensure(context.Background(), KubeAPIServer, "v1.35.4", Options{CacheDir: cache})
	if err != nil || got != fromEnv {
		t.Errorf("from env: %q, %v", got, err)
	}
	// Options win over the environment, and keys are normalised.
	got, err = e.ensure(context.Background(), KubeAPIServer, "v1.36.3", Options{CacheDir: cache, Paths: map[string]string{"kube-apiserver@1.36.3": fromOpts}})
	if err != nil || got != fromOpts {
		t.Errorf("from options: %q, %v", got, err)
	}
}

func TestEnsureExplicitPathErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "kube-apiserver")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	e := testEnsurer(t)
	ctx := context.Background()
	opts := Options{CacheDir: t.TempDir()}

	t.Setenv(envBinaries, "kube-apiserver@v1.36.3="+missing)
	if _, err := e.ensure(ctx, KubeAPIServer, "v1.36.3", opts); err == nil || !strings.Contains(err.Error(), "$"+envBinaries) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing from env: %v", err)
	}
	t.Setenv(envBinaries, "kube-apiserver@v1.36.3")
	if _, err := e.ensure(ctx, KubeAPIServer, "v1.36.3", opts); err == nil || !strings.Contains(err.Error(), "$"+envBinaries) {
		t.Errorf("malformed env: %v", err)
	}
	t.Setenv(envBinaries, "")

	o := opts
	o.Paths = map[string]string{"kube-apiserver@v1.36.3": notExec}
	var named ErrNamedBinary
	if _, err := e.ensure(ctx, KubeAPIServer, "v1.36.3", o); !errors.As(err, &named) || named.FromEnv || named.Key != "kube-apiserver@v1.36.3" ||
		named.Path != notExec || !strings.Contains(err.Error(), "Options.Paths") || !strings.Contains(named.Problem, "chmod +x") {
		t.Errorf("not executable: %v", err)
	}
	o.Paths = map[string]string{"kube-apiserver@1.36": notExec}
	if _, err := e.ensure(ctx, KubeAPIServer, "v1.36.3", o); !errors.As(err, &named) || named.Key != "kube-apiserver@1.36" || !strings.Contains(err.Error(), "Options.Paths") {
		t.Errorf("inexact key: %v", err)
	}
}
