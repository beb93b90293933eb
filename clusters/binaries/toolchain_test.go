package binaries

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The toolchain of a build: none while the machine's go is at least the go line, else the
// toolchain line, the release's .go-version, or the go line as a release, in that order.
func TestChooseToolchain(t *testing.T) {
	for _, c := range []struct {
		name, goMod, goVersion, have string
		want                         string // GOTOOLCHAIN, "" for the machine's go
	}{
		{"an older release on a newer patch", "go 1.26.0\n", "", "go1.26.8", ""},
		{"v1.37.2: its .go-version is newer, its go line is not", "go 1.26.0\n", "1.26.10", "go1.26.8", ""},
		{"a newer toolchain line is no reason to fetch", "go 1.26.0\ntoolchain go1.27.3\n", "", "go1.26.8", ""},
		{"the go line as a release", "go 1.27.0\n", "", "go1.26.8", "go1.27.0"},
		{"a language version's first release", "go 1.27\n", "", "go1.26.8", "go1.27.0"},
		{"a go line of a release candidate", "go 1.27rc1\n", "", "go1.26.8", "go1.27rc1"},
		{"the toolchain line", "go 1.27.0\ntoolchain go1.27.3\n", "", "go1.26.8", "go1.27.3"},
		{"the toolchain line before .go-version", "go 1.27.0\ntoolchain go1.27.2\n", "1.27.3", "go1.26.8", "go1.27.2"},
		{"a toolchain line older than the go line is ignored", "go 1.27.0\ntoolchain go1.26.9\n", "", "go1.26.8", "go1.27.0"},
		{"v1.38.0-beta.0: .go-version", "module k8s.io/kubernetes\n\ngo 1.27.0\n\ngodebug default=go1.27\n", "1.27.3\n", "go1.26.8", "go1.27.3"},
		{".go-version older than the go line is ignored", "go 1.27.0\n", "1.26.10", "go1.26.8", "go1.27.0"},
		{".go-version that is a language version is ignored", "go 1.27.0\n", "1.27", "go1.26.8", "go1.27.0"},
		{"a machine already new enough", "go 1.27.0\n", "1.27.3", "go1.27.0", ""},
		{"a development toolchain", "go 1.27.0\n", "", "devel go1.28-abcdef Tue Nov 3 2026", ""},
		{"no go line", "module x\n", "", "go1.26.8", ""},
	} {
		got, err := chooseToolchain([]byte(c.goMod), c.goVersion, c.have)
		if err != nil || got.Toolchain != c.want {
			t.Errorf("%s: chooseToolchain = %+v, %v; want GOTOOLCHAIN %q", c.name, got, err, c.want)
		}
		if got.Toolchain != "" && got.From == "" {
			t.Errorf("%s: %+v does not say where %s comes from", c.name, got, got.Toolchain)
		}
	}
	if c, _ := chooseToolchain([]byte("go 1.27.0\n"), "", "go1.26.8"); c.needs() != "go 1.27" {
		t.Errorf("needs() = %q, want go 1.27", c.needs())
	}
	if _, err := chooseToolchain([]byte("go banana\n"), "", "go1.26.8"); err == nil {
		t.Error("a go line that is no Go version was taken")
	}
}

// The toolchain is set in the build command's environment alone: appended last (so it wins
// over a GOTOOLCHAIN=local of the user's), the base slice and this process untouched.
func TestBuildCommandEnvironment(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "local")
	base := goEnv()
	before := slices.Clone(base)
	env := toolchainEnv(base, "go1.27.3")
	if !slices.Equal(base, before) {
		t.Error("toolchainEnv changed its base")
	}
	if got := env[len(env)-1]; got != "GOTOOLCHAIN=go1.27.3" {
		t.Errorf("last entry %q, want GOTOOLCHAIN=go1.27.3", got)
	}
	if e := toolchainEnv(base, ""); !slices.Equal(e, base) {
		t.Error("no toolchain changed the environment")
	}
	r := request{component: KubeAPIServer, version: "v1.38.0-beta.0", out: "/tmp/out"}
	cmd := goBuildCommand(context.Background(), r, kubernetesModuleInfo{}, t.TempDir(), env)
	if !slices.Equal(cmd.Env, env) || !slices.Contains(cmd.Args, "k8s.io/kubernetes/cmd/kube-apiserver") {
		t.Errorf("build command %v has env %v", cmd.Args, cmd.Env)
	}
	for _, want := range []string{"GOWORK=off", "CGO_ENABLED=0", "GOFLAGS=-mod=mod -buildvcs=false"} {
		if !slices.Contains(cmd.Env, want) {
			t.Errorf("build environment lacks %s", want)
		}
	}
	// What the child sees: the last GOTOOLCHAIN.
	out, err := exec.Command("sh", "-c", `printf %s "$GOTOOLCHAIN"`).Output()
	if err != nil {
		t.Skip("no sh:", err)
	}
	sh := exec.Command("sh", "-c", `printf %s "$GOTOOLCHAIN"`)
	sh.Env = env
	if got, _ := sh.Output(); string(got) != "go1.27.3" {
		t.Errorf("the build's GOTOOLCHAIN is %q, want go1.27.3", got)
	}
	if string(out) != "local" || os.Getenv("GOTOOLCHAIN") != "local" {
		t.Errorf("this process's GOTOOLCHAIN changed to %q", os.Getenv("GOTOOLCHAIN"))
	}
}

func TestToolchainErrorWording(t *testing.T) {
	r := request{component: KubeAPIServer, version: "v1.38.0-beta.0"}
	c := toolchainChoice{Need: "1.27.0", Toolchain: "go1.27.3", From: "its .go-version, the Go Kubernetes builds it with"}
	msg := toolchainError(r, c, "go1.26.8", errors.New("exit status 1"),
		"go: downloading go1.27.3 (linux/amd64)\ngo: download go1.27.3: golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64: Get \"https://proxy.golang.org/...\": dial tcp: lookup proxy.golang.org: no such host\n").Error()
	for _, want := range []string{
		"cannot build kube-apiserver v1.38.0-beta.0", "needs go 1.27", "go.mod says go 1.27.0", "this machine's go is go1.26.8",
		"Go toolchain go1.27.3", "golang.org/toolchain@v0.0.1-go1.27.3." + runtime.GOOS + "-" + runtime.GOARCH,
		"GOTOOLCHAIN=go1.27.3 go version failed: exit status 1", "no such host",
		"make the Go module proxy reachable (go env GOPROXY)", "install Go 1.27.3 (or any Go at least 1.27.0)",
		`Source "download"`, envBinaries, "kube-apiserver@v1.38.0-beta.0=/path/to/kube-apiserver",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

// fakeGo puts a go command first on PATH: script is the body of a sh case on "$1 $2".
func fakeGo(t *testing.T, script string) {
	t.Helper()
	dir := t.TempDir()
	body := "#!/bin/sh\ncase \"$1 $2\" in\n" + script + "\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// The toolchain is fetched with a progress line saying why; taken from the module cache
// with another; and a toolchain go cannot get is the clear error, with go's words.
func TestBuildToolchain(t *testing.T) {
	modCache := t.TempDir()
	var log bytes.Buffer
	r := request{component: KubeAPIServer, version: "v1.38.0-beta.0", progress: newProgress(&log)}
	mod := kubernetesModuleInfo{goMod: []byte("go 1.27.0\n")}
	fakeGo(t, `"env GOVERSION") printf 'go1.26.8\n`+modCache+`\n' ;;
"version ") if [ "$GOTOOLCHAIN" = go1.27.0 ]; then echo 'go version go1.27.0 linux/amd64'; else echo "go: download $GOTOOLCHAIN for linux/amd64: toolchain not available" >&2; exit 1; fi ;;`)

	c, err := buildToolchain(context.Background(), r, mod)
	if err != nil || c.Toolchain != "go1.27.0" {
		t.Fatalf("buildToolchain = %+v, %v; want go1.27.0", c, err)
	}
	if want := "fetching Go toolchain go1.27.0 for kube-apiserver v1.38.0-beta.0 (needs go 1.27; this machine's go is go1.26.8;"; !strings.Contains(log.String(), want) {
		t.Errorf("progress %q lacks %q", log.String(), want)
	}

	path, ver := toolchainModule("go1.27.0")
	if err := os.MkdirAll(filepath.Join(modCache, path+"@"+ver, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if _, err := buildToolchain(context.Background(), r, mod); err != nil || !strings.Contains(log.String(), "with Go toolchain go1.27.0") ||
		!strings.Contains(log.String(), "in the module cache") || strings.Contains(log.String(), "fetching") {
		t.Errorf("a cached toolchain: %v, progress %q", err, log.String())
	}

	_, err = buildToolchain(context.Background(), r, kubernetesModuleInfo{goMod: []byte("go 1.27.0\ntoolchain go1.27.3\n")})
	if err == nil || !strings.Contains(err.Error(), "cannot build kube-apiserver v1.38.0-beta.0: it needs go 1.27") ||
		!strings.Contains(err.Error(), "toolchain not available") || !strings.Contains(err.Error(), "go.mod's toolchain line") {
		t.Errorf("a toolchain that cannot be fetched: %v", err)
	}

	log.Reset()
	if c, err := buildToolchain(context.Background(), r, kubernetesModuleInfo{goMod: []byte("go 1.26.0\n")}); err != nil || c.Toolchain != "" || log.Len() != 0 {
		t.Errorf("a release the machine's go builds: %+v, %v, progress %q", c, err, log.String())
	}
}

// go mod download of a release too new for the running go fails, but leaves its go.mod
// and zip: they are returned with a *goTooNewError, so the build can choose the toolchain.
func TestDownloadKubernetesTooNew(t *testing.T) {
	dir := t.TempDir()
	gomod := filepath.Join(dir, "v1.38.0-beta.0.mod")
	zipPath := filepath.Join(dir, "v1.38.0-beta.0.zip")
	os.WriteFile(gomod, []byte("module k8s.io/kubernetes\n\ngo 1.27.0\n"), 0o644)
	writeZip(t, zipPath, map[string]string{"k8s.io/kubernetes@v1.38.0-beta.0/.go-version": "1.27.3\n"})
	fakeGo(t, `"mod download") printf '{"Path":"k8s.io/kubernetes","Version":"v1.38.0-beta.0","Error":"k8s.io/kubernetes@v1.38.0-beta.0 requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)","GoMod":"`+gomod+`","Zip":"`+zipPath+`"}\n'; exit 1 ;;`)
	info, err := downloadKubernetes(context.Background(), t.TempDir(), "v1.38.0-beta.0", goEnv())
	var tooNew *goTooNewError
	if !errors.As(err, &tooNew) || !strings.Contains(err.Error(), "requires go >= 1.27.0") {
		t.Fatalf("err = %v, want a *goTooNewError", err)
	}
	if !strings.Contains(string(info.goMod), "go 1.27.0") || info.zip != zipPath {
		t.Errorf("info = %+v, want the go.mod and the zip", info)
	}
	if got := goVersionFile(info.zip, "v1.38.0-beta.0"); got != "1.27.3" {
		t.Errorf(".go-version = %q, want 1.27.3", got)
	}
	if got := goVersionFile(info.zip, "v1.37.2"); got != "" {
		t.Errorf(".go-version of another version = %q", got)
	}

	fakeGo(t, `"mod download") printf '{"Path":"k8s.io/kubernetes","Version":"v1.99.0","Error":"unknown revision v1.99.0"}\n'; exit 1 ;;`)
	if _, err := downloadKubernetes(context.Background(), t.TempDir(), "v1.99.0", goEnv()); err == nil || errors.As(err, &tooNew) {
		t.Errorf("another failure: %v, want a plain error", err)
	}
}

func writeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	for name, body := range files {
		fw, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
