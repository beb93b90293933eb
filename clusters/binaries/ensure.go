// Package binaries finds or builds the real Kubernetes binaries (such as
// kube-apiserver v1.35.4 and v1.36.3) that skewcheck runs side by side.
package binaries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Component is a Kubernetes binary skewcheck can run. Each is built from
// k8s.io/kubernetes/cmd/<component> and released as bin/<os>/<arch>/<component>.
type Component string

const (
	KubeAPIServer         Component = "kube-apiserver"
	KubeControllerManager Component = "kube-controller-manager"
	KubeProxy             Component = "kube-proxy"
	// The rest make kind node images (clusters/images/nodeimage).
	KubeScheduler Component = "kube-scheduler"
	Kubelet       Component = "kubelet"
	Kubeadm       Component = "kubeadm"
	Kubectl       Component = "kubectl"
)

var components = []Component{KubeAPIServer, KubeControllerManager, KubeProxy, KubeScheduler, Kubelet, Kubeadm, Kubectl}

// known guards against arbitrary names, which become file paths and package paths.
func (c Component) known() bool {
	for _, k := range components {
		if c == k {
			return true
		}
	}
	return false
}

func knownComponents() string {
	names := make([]string, len(components))
	for i, c := range components {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Sources for Options.Source.
const (
	SourceAuto     = "auto"     // cache, then download, then build
	SourceBuild    = "build"    // cache, then build
	SourceDownload = "download" // cache, then download
	SourceCache    = "cache"    // cache only: never build or download
)

// Options says where Ensure may get binaries from. The zero value is the default.
type Options struct {
	// CacheDir holds built and downloaded binaries; default DefaultCacheDir().
	CacheDir string
	// Paths names binaries to use as they are, keyed "<component>@<version>",
	// e.g. "kube-apiserver@v1.36.3" -> "/path/to/kube-apiserver". They take
	// precedence over $SKEWCHECK_BINARIES
	// ("kube-apiserver@v1.36.3=/p,kube-apiserver@v1.35.4=/q").
	Paths map[string]string
	// Source is SourceAuto (default), SourceBuild, SourceDownload or SourceCache.
	Source string
	// DownloadBaseURL is where release binaries are; default DefaultDownloadBaseURL.
	DownloadBaseURL string
	// Progress receives a line for each step of minutes-long work; nil discards.
	Progress io.Writer
}

// request is one binary to produce, as seen by a build or download step.
type request struct {
	component       Component
	version         string
	out             string // path to write; does not exist yet
	cacheDir        string
	downloadBaseURL string
	progress        *progress
	toolchain       string // the GOTOOLCHAIN a build runs with ("go1.27.3"); "" for the machine's go
}

// ensurer holds Ensure's steps, so tests can replace the minutes-long build
// and the network with fakes.
type ensurer struct {
	resolver resolver
	build    func(context.Context, request) error
	download func(context.Context, request) error
}

var defaultEnsurer = ensurer{resolver: defaultResolver, build: buildFromProxy, download: downloadRelease}

// Ensure returns the path of an executable binary of component c at version
// (exact, or anything Resolve accepts), trying in order: an explicit path
// from opts.Paths or $SKEWCHECK_BINARIES; the cache
// (<cache>/bin/<component>/<version>/<component>); a download of the official
// release binary, verified by its published sha256 (seconds where dl.k8s.io is reachable;
// where it is not, as on a machine that reaches only the Go module proxy, the lookup fails
// in milliseconds); a build from the Go module proxy (minutes per version).
// Built and downloaded binaries are checked to report the right version and
// are installed in the cache atomically, under a lock that makes concurrent
// callers (processes or goroutines) wait for one producer.
func Ensure(ctx context.Context, c Component, version string, opts Options) (string, error) {
	return defaultEnsurer.ensure(ctx, c, version, opts)
}

func (e ensurer) ensure(ctx context.Context, c Component, version string, opts Options) (string, error) {
	if !c.known() {
		return "", fmt.Errorf("unknown component %q; known: %s", c, knownComponents())
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if opts.DownloadBaseURL == "" {
		opts.DownloadBaseURL = DefaultDownloadBaseURL
	}
	var steps []string
	switch opts.Source {
	case "", SourceAuto:
		opts.Source, steps = SourceAuto, []string{SourceDownload, SourceBuild}
	case SourceBuild, SourceDownload:
		steps = []string{opts.Source}
	case SourceCache:
	default:
		return "", fmt.Errorf("unknown binary source %q; use %q, %q, %q or %q", opts.Source, SourceAuto, SourceBuild, SourceDownload, SourceCache)
	}
	p := newProgress(opts.Progress)

	// An exact version needs no network: cache hits must work offline.
	v, ok := exactVersion(version)
	if !ok {
		var err error
		if v, err = e.resolver.resolve(ctx, version, string(c)); err != nil {
			return "", err
		}
	}

	explicit, ok, err := explicitPath(c, v, opts)
	if err != nil {
		return "", err
	}
	if ok {
		if err := checkExecutable(explicit.path); err != nil {
			return "", ErrNamedBinary{Key: string(c) + "@" + v, Path: explicit.path, FromEnv: explicit.fromEnv,
				Problem: err.Error() + "; fix the path, or remove the entry to let skewcheck build or download it"}
		}
		return explicit.path, nil
	}

	dest := binPath(opts.CacheDir, c, v)
	// Installs are atomic renames, so an executable file here is complete.
	if checkExecutable(dest) == nil {
		return dest, nil
	}
	if opts.Source == SourceCache {
		return "", fmt.Errorf("%s %s is not in the cache (%s does not exist) and the binary source is %q, which never builds or downloads; "+
			"run once with source %q to build it, or name a binary in $%s (%s@%s=/path/to/%s)",
			c, v, dest, SourceCache, SourceAuto, envBinaries, c, v, c)
	}

	lock := lockPath(opts.CacheDir, c, v)
	unlock, err := lockFile(ctx, lock, func(waited time.Duration) {
		if waited < lockWaitReport {
			p.printf("waiting for another process that is building or downloading %s %s (lock %s)", c, v, lock)
		} else {
			p.printf("still waiting for another process to build or download %s %s (%s)", c, v, waited.Round(time.Second))
		}
	})
	if err != nil {
		return "", err
	}
	defer unlock()
	// Whoever held the lock may have just installed it.
	if checkExecutable(dest) == nil {
		p.printf("%s %s is ready (provided by another process): %s", c, v, dest)
		return dest, nil
	}
	removeStale(opts.CacheDir, c, v)

	req := request{component: c, version: v, cacheDir: opts.CacheDir, downloadBaseURL: opts.DownloadBaseURL, progress: p}
	var failures []string
	for _, step := range steps {
		err := e.produce(ctx, step, req, dest)
		if err == nil {
			return dest, nil
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s %s: %s interrupted: %w", c, v, step, ctx.Err())
		}
		failures = append(failures, fmt.Sprintf("%s: %v", step, err))
		if len(steps) > 1 {
			p.printf("could not %s %s %s: %v", step, c, v, err)
		}
	}
	if len(failures) == 1 {
		return "", fmt.Errorf("cannot provide %s %s: it is not in the cache (%s) and %s", c, v, dest, failures[0])
	}
	return "", fmt.Errorf("cannot provide %s %s; tried:\n  cache: %s does not exist\n  %s\nfix one of these, or name a binary you have in $%s (%s@%s=/path/to/%s)",
		c, v, dest, strings.Join(failures, "\n  "), envBinaries, c, v, c)
}

// produce runs one build or download step into the cache.
func (e ensurer) produce(ctx context.Context, step string, req request, dest string) error {
	run := e.download
	if step == SourceBuild {
		// Check the version first: it turns go's terse error about a missing
		// module version into one that lists the versions there are.
		if _, err := e.resolver.resolve(ctx, req.version, string(req.component)); err != nil {
			return err
		}
		req.progress.printf("building %s %s from the Go module proxy (takes about %s on %d cores; cached afterwards in %s)",
			req.component, req.version, buildEstimate(), runtime.NumCPU(), filepath.Dir(dest))
		run = e.build
	}
	return installAtomic(dest, func(tmp string) error {
		req.out = tmp
		if err := run(ctx, req); err != nil {
			return err
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			return err
		}
		return verifyVersion(ctx, req.component, tmp, req.version)
	})
}

// buildEstimate scales the ~4 minutes measured on 2 cores; compiling
// parallelises, linking the 150 MB binary does not, hence the floor.
func buildEstimate() string {
	m := max(2, 8/max(1, runtime.NumCPU()))
	return fmt.Sprintf("%d minutes", m)
}

// versionArgs is how component c prints its version: the servers and the
// kubelet take --version and print "Kubernetes v1.36.3"; kubeadm and kubectl
// have a version subcommand instead, and print the bare version.
func versionArgs(c Component) (args []string, prefix string) {
	switch c {
	case Kubeadm:
		return []string{"version", "-o", "short"}, ""
	case Kubectl:
		return []string{"version", "--client"}, "Version:"
	}
	return []string{"--version"}, "Kubernetes"
}

// verifyVersion runs the binary's version command (versionArgs) and requires
// it to print version: a binary that reports another version (say
// v0.0.0-master from an unstamped build) would make every skew result
// meaningless.
func verifyVersion(ctx context.Context, c Component, path, version string) error {
	if err := checkExecutable(path); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	args, prefix := versionArgs(c)
	var out []byte
	var err error
	for attempt := 0; ; attempt++ {
		var buf bytes.Buffer
		cmd := exec.CommandContext(ctx, path, args...)
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err = cmd.Run()
		out = buf.Bytes()
		// A just-written file can be briefly "text file busy" when another
		// goroutine forked while it was open for writing (golang.org/issue/22315).
		if errors.Is(err, syscall.ETXTBSY) && attempt < 10 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		break
	}
	if err != nil {
		return fmt.Errorf("%s %s failed: %v: %s", path, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	fields := strings.Fields(string(out))
	for i, f := range fields {
		if f == version && (prefix == "" || i > 0 && fields[i-1] == prefix) {
			return nil
		}
	}
	return fmt.Errorf("%s %s printed %q, not %q; the binary is not the version it should be, nothing was installed",
		path, strings.Join(args, " "), strings.TrimSpace(string(out)), strings.TrimSpace(prefix+" "+version))
}
