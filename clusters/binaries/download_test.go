package binaries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// releaseServer serves one fake release binary the way dl.k8s.io lays it out.
func releaseServer(t *testing.T, version string, body []byte, digest string) *httptest.Server {
	t.Helper()
	base := "/release/" + version + "/bin/" + runtime.GOOS + "/" + runtime.GOARCH + "/kube-apiserver"
	mux := http.NewServeMux()
	mux.HandleFunc(base, func(w http.ResponseWriter, _ *http.Request) { w.Write(body) })
	mux.HandleFunc(base+".sha256", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(digest + "  kube-apiserver\n")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func fakeBinaryBytes(version string) []byte {
	return []byte("#!/bin/sh\necho Kubernetes " + version + "\n")
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func downloadEnsurer(t *testing.T) ensurer {
	e := testEnsurer(t)
	e.download = downloadRelease
	return e
}

func TestDownloadSuccess(t *testing.T) {
	body := fakeBinaryBytes("v1.36.3")
	srv := releaseServer(t, "v1.36.3", body, strings.ToUpper(sha(body)))
	cache := t.TempDir()
	got, err := downloadEnsurer(t).ensure(context.Background(), KubeAPIServer, "v1.36.3",
		Options{CacheDir: cache, Source: SourceDownload, DownloadBaseURL: srv.URL + "/release/"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(got)
	if got != binPath(cache, KubeAPIServer, "v1.36.3") || string(data) != string(body) {
		t.Fatalf("installed %q with %q", got, data)
	}
}

func TestDownloadChecksumMismatchInstallsNothing(t *testing.T) {
	body := fakeBinaryBytes("v1.36.3")
	srv := releaseServer(t, "v1.36.3", body, sha([]byte("something else")))
	cache := t.TempDir()
	_, err := downloadEnsurer(t).ensure(context.Background(), KubeAPIServer, "v1.36.3",
		Options{CacheDir: cache, Source: SourceDownload, DownloadBaseURL: srv.URL + "/release"})
	if err == nil || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), "nothing was installed") {
		t.Fatalf("got %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(binPath(cache, KubeAPIServer, "v1.36.3"))); len(entries) != 0 {
		t.Fatalf("installed something: %v", entries)
	}
}

func TestDownloadNotFound(t *testing.T) {
	srv := releaseServer(t, "v1.36.3", nil, "")
	_, err := downloadEnsurer(t).ensure(context.Background(), KubeAPIServer, "v1.35.4",
		Options{CacheDir: t.TempDir(), Source: SourceDownload, DownloadBaseURL: srv.URL + "/release"})
	if err == nil || !strings.Contains(err.Error(), "has no kube-apiserver v1.35.4") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("got %v", err)
	}
}

func TestDownloadBadChecksumFile(t *testing.T) {
	srv := releaseServer(t, "v1.36.3", fakeBinaryBytes("v1.36.3"), "<html>oops</html>")
	_, err := downloadEnsurer(t).ensure(context.Background(), KubeAPIServer, "v1.36.3",
		Options{CacheDir: t.TempDir(), Source: SourceDownload, DownloadBaseURL: srv.URL + "/release"})
	if err == nil || !strings.Contains(err.Error(), "does not contain a sha256 digest") {
		t.Fatalf("got %v", err)
	}
}
