package nodeimage

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// goProgram is a small program the node's images need that is not a Kubernetes component:
// the main package pkg, built from the Go module proxy in a throwaway module that requires
// module (or from source, when source is set: pkg is then the throwaway module itself).
type goProgram struct {
	name    string // file name, and the cache directory's
	module  string // "go.etcd.io/etcd/server/v3 v3.6.8", or "" for source-only programs
	pkg     string // the main package to build
	source  string // main.go of a program of our own, or ""
	version string // what the cache directory is keyed by
}

// ensureGoProgram returns the cached static binary of prog, building it the first time.
func ensureGoProgram(ctx context.Context, cacheDir string, prog goProgram, p *progress) (string, error) {
	out := filepath.Join(cacheDir, "bin", prog.name, prog.version, prog.name)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Tests side by side (make test) make node images at once on a fresh machine: one
	// builds, the others wait and take its binary.
	unlock, err := lock(ctx, out+".lock", p, prog.name+" "+prog.version)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		return out, nil // built while we waited
	}
	work, err := os.MkdirTemp(filepath.Dir(out), "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	gomod := "module skewcheck.local/" + prog.name + "\n\ngo 1.24\n"
	if prog.module != "" {
		gomod += "\nrequire " + prog.module + "\n"
	}
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	if prog.source != "" {
		if err := os.WriteFile(filepath.Join(work, "main.go"), []byte(prog.source), 0o644); err != nil {
			return "", err
		}
	}
	start := time.Now()
	p.printf("building %s %s (static, from the Go module proxy)", prog.name, prog.version)
	log := filepath.Join(work, "build.log")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out+".tmp", prog.pkg)
	cmd.Dir = work
	// -mod=mod lets go fill in the requirements of the throwaway module; CGO_ENABLED=0 makes
	// the binary static, for images that have no C library.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	f, err := os.Create(log)
	if err != nil {
		return "", err
	}
	cmd.Stdout, cmd.Stderr = f, f
	stop := p.every(30*time.Second, "still building "+prog.name)
	err = cmd.Run()
	stop()
	f.Close()
	if err != nil {
		return "", fmt.Errorf("building %s (%s) failed: %v\n--- go's output ---\n%s\ncheck that the Go module proxy is reachable (go env GOPROXY)", prog.name, prog.pkg, err, tail(log, 20))
	}
	p.printf("built %s in %s", prog.name, time.Since(start).Round(time.Second))
	return out, os.Rename(out+".tmp", out)
}

// etcdProgram is the etcd server, built from its own module's main package: the same
// code as the official etcd release of that version.
var etcdProgram = goProgram{
	name: "etcd", module: "go.etcd.io/etcd/server/v3 v3.6.8", pkg: "go.etcd.io/etcd/server/v3", version: "v3.6.8",
}

// pauseProgram is the sandbox's first process: it holds the pod's namespaces, reaps
// orphans, and exits on SIGINT or SIGTERM, as the official pause does, in a few lines of Go.
var pauseProgram = goProgram{name: "pause", pkg: ".", version: "skewcheck-1", source: `package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
`}
