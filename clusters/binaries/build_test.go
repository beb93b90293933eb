package binaries

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const sampleKubeGoMod = `module k8s.io/kubernetes

go 1.25.0

godebug default=go1.25

require (
	k8s.io/api v0.0.0
	k8s.io/client-go v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	example.com/fork v1.0.0 => example.com/fork v1.0.1
)
`

func TestWrapperGoMod(t *testing.T) {
	out, err := wrapperGoMod([]byte(sampleKubeGoMod), "v1.35.4")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"module skewcheck.local/build\n",
		"go 1.25.0\n",
		"godebug default=go1.25\n",
		"require k8s.io/kubernetes v1.35.4\n",
		"\tk8s.io/api => k8s.io/api v0.35.4\n",
		"\tk8s.io/client-go => k8s.io/client-go v0.35.4\n",
		"\texample.com/fork v1.0.0 => example.com/fork v1.0.1\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("wrapper go.mod lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "staging") {
		t.Errorf("wrapper go.mod still points at staging:\n%s", s)
	}
}

func TestWrapperGoModPrerelease(t *testing.T) {
	out, err := wrapperGoMod([]byte(sampleKubeGoMod), "v1.37.0-rc.1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "k8s.io/api => k8s.io/api v0.37.0-rc.1\n") {
		t.Errorf("prerelease staging version wrong:\n%s", out)
	}
}

func TestWrapperGoModRejectsOtherLocalReplace(t *testing.T) {
	mod := sampleKubeGoMod + "replace example.com/x => ./third_party/x\n"
	if _, err := wrapperGoMod([]byte(mod), "v1.35.4"); err == nil || !strings.Contains(err.Error(), "third_party/x") {
		t.Fatalf("got %v, want an error naming ./third_party/x", err)
	}
}

func TestVersionLDFlags(t *testing.T) {
	date := time.Date(2026, 7, 22, 18, 7, 38, 0, time.UTC)
	got := versionLDFlags("v1.36.3", date, "abc123")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range []string{"gitVersion=v1.36.3", "gitMajor=1", "gitMinor=36", "gitTreeState=clean", "buildDate=2026-07-22T18:07:38Z", "gitCommit=abc123"} {
			if !strings.Contains(got, "-X "+pkg+"."+kv) {
				t.Errorf("ldflags lack -X %s.%s: %s", pkg, kv, got)
			}
		}
	}
	if !strings.HasPrefix(got, "-s -w ") {
		t.Errorf("ldflags do not strip symbols: %s", got)
	}
	if pre := versionLDFlags("v1.37.0-rc.1", date, ""); !strings.Contains(pre, "gitMinor=37 ") || strings.Contains(pre, "gitCommit") {
		t.Errorf("prerelease ldflags wrong: %s", pre)
	}
}

func TestBuildErrorKeepsLogAndTail(t *testing.T) {
	cache := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "build.log")
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	if err := os.WriteFile(logPath, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := request{component: KubeAPIServer, version: "v1.36.3", cacheDir: cache}
	msg := buildError(r, errors.New("exit status 1"), logPath).Error()
	kept := filepath.Join(cache, "logs", "build-kube-apiserver-v1.36.3.log")
	for _, want := range []string{"exit status 1", "line 11\n", "line 40\n", kept, envBinaries, "download"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 10\n") {
		t.Errorf("error has more than the last 30 lines:\n%s", msg)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("full log not kept: %v", err)
	}
}

// The modules a build could not verify because the checksum database never recorded them
// are found in go's output, once each; only Kubernetes' own k8s.io modules count.
func TestUnknownToSumDB(t *testing.T) {
	log := filepath.Join(t.TempDir(), "build.log")
	os.WriteFile(log, []byte(`go: downloading k8s.io/mount-utils v0.27.16
/root/go/pkg/mod/k8s.io/kubernetes@v1.27.16/pkg/cluster/ports/ports.go:20:2: k8s.io/cloud-provider@v0.27.16: verifying module: k8s.io/cloud-provider@v0.27.16: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/k8s.io/cloud-provider@v0.27.16: 404 Not Found
/root/go/pkg/mod/k8s.io/kubernetes@v1.27.16/pkg/volume/util/fsquota/quota.go:20:2: k8s.io/mount-utils@v0.27.16: verifying module: k8s.io/mount-utils@v0.27.16: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/k8s.io/mount-utils@v0.27.16: 404 Not Found
/x.go:3:2: k8s.io/cloud-provider@v0.27.16: verifying module: k8s.io/cloud-provider@v0.27.16: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/k8s.io/cloud-provider@v0.27.16: 404 Not Found
/y.go:4:2: example.com/evil@v1.0.0: verifying module: example.com/evil@v1.0.0: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/example.com/evil@v1.0.0: 404 Not Found
`), 0o644)
	got := unknownToSumDB(log)
	want := []string{"k8s.io/cloud-provider@v0.27.16", "k8s.io/mount-utils@v0.27.16"}
	if !slices.Equal(got, want) {
		t.Errorf("unknownToSumDB = %q, want %q", got, want)
	}
	if p := modulePaths(got); !slices.Equal(p, []string{"k8s.io/cloud-provider", "k8s.io/mount-utils"}) {
		t.Errorf("modulePaths = %q", p)
	}
}

// A release that needs a module the proxy refuses (1.38.0-beta.0's k8s.io/apiextensions-api,
// refused by this machine's proxy) fails with that cause first, naming the module once, and
// without the advice about Go versions that cannot help.
func TestBuildErrorNamesAModuleTheProxyRefuses(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "build.log")
	refused := "/root/go/pkg/mod/k8s.io/apiextensions-apiserver@v0.38.0-beta.0/pkg/apiserver/apiserver.go:%d:2: k8s.io/apiextensions-api@v0.38.0-beta.0: reading https://proxy.golang.org/k8s.io/apiextensions-api/@v/v0.38.0-beta.0.zip: 403 Forbidden\n\tserver response: This module version is not available.\n"
	log := fmt.Sprintf(refused, 26) + fmt.Sprintf(refused, 27) +
		"/x.go:3:2: k8s.io/cloud-provider@v0.27.16: verifying module: k8s.io/cloud-provider@v0.27.16: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/k8s.io/cloud-provider@v0.27.16: 404 Not Found\n"
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	r := request{component: KubeAPIServer, version: "v1.38.0-beta.0", cacheDir: t.TempDir(), toolchain: "go1.27.3"}
	msg := buildError(r, errors.New("exit status 1"), logPath).Error()
	want := "kubernetes v1.38.0-beta.0 needs k8s.io/apiextensions-api@v0.38.0-beta.0 (403 Forbidden), which the Go module proxy (go env GOPROXY) does not serve"
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, envBinaries) || !strings.Contains(msg, "GOTOOLCHAIN=go1.27.3") {
		t.Errorf("error does not lead with the refused module:\n%s", msg)
	}
	if strings.Contains(msg, "cloud-provider") || strings.Contains(msg, "your go is at least") {
		t.Errorf("error names the checksum database's unknown module or the Go-version advice:\n%s", msg)
	}
}
