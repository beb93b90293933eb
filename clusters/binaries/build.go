package binaries

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/internal/heartbeat"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// goCommand is the go tool used for listing versions and building.
const goCommand = "go"

// buildReport is how often a running build says it is still running.
var buildReport = 30 * time.Second

// buildTags are the tags of official release builds (hack/lib/golang.sh:
// selinux,notest and, for non-debug builds, grpcnotrace), so a built binary
// has the same code paths as the released one.
const buildTags = "selinux,notest,grpcnotrace"

// goEnv is the environment of every go command we run. GOWORK=off and
// GOFLAGS=-mod=mod keep a caller's workspace or flags from changing the
// build; -mod=mod lets go add requirements to our generated go.mod, so no
// go mod tidy is needed. CGO_ENABLED=0 matches the static release binaries.
func goEnv() []string {
	return append(os.Environ(),
		"GOWORK=off",
		"GOFLAGS=-mod=mod -buildvcs=false",
		"CGO_ENABLED=0",
		"GOOS="+runtime.GOOS,
		"GOARCH="+runtime.GOARCH,
	)
}

func buildDirPrefix(c Component, version string) string { return fmt.Sprintf("%s-%s-", c, version) }

// buildFromProxy builds component at version from k8s.io/kubernetes on the Go
// module proxy into out. k8s.io/kubernetes cannot be built as a dependency
// as-is, because its go.mod points the k8s.io/* staging modules at
// ./staging/src/...; replace directives of dependencies are ignored, so a
// small wrapper module repeats them, pointing at the published staging
// modules (v0.<minor>.<patch>) instead.
func buildFromProxy(ctx context.Context, r request) error {
	if _, err := exec.LookPath(goCommand); err != nil {
		return fmt.Errorf("the go command is not on PATH (%v); install Go, or use a downloaded binary (Source \"download\")", err)
	}
	if err := os.MkdirAll(filepath.Join(r.cacheDir, "build"), 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp(filepath.Join(r.cacheDir, "build"), buildDirPrefix(r.component, r.version))
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// A release that needs a newer Go than the machine's (v1.38.0-beta.0: go 1.27.0) is
	// downloaded all the same, but go says it "requires go >= ..." instead of unpacking it:
	// its go.mod decides the toolchain, and the download is done again with that.
	mod, err := downloadKubernetes(ctx, work, r.version, goEnv())
	var tooNew *goTooNewError
	if err != nil && !errors.As(err, &tooNew) {
		return err
	}
	tc, err := buildToolchain(ctx, r, mod)
	if err != nil {
		return err
	}
	r.toolchain = tc.Toolchain
	env := toolchainEnv(goEnv(), tc.Toolchain)
	if tooNew != nil {
		if tc.Toolchain == "" {
			return tooNew
		}
		if mod, err = downloadKubernetes(ctx, work, r.version, env); err != nil {
			return err
		}
	}
	gomod, err := wrapperGoMod(mod.goMod, r.version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "go.mod"), gomod, 0o644); err != nil {
		return err
	}

	logPath := filepath.Join(work, "build.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	build := func(env []string) error {
		cmd := goBuildCommand(ctx, r, mod, work, env)
		cmd.Stdout, cmd.Stderr = logFile, logFile
		return cmd.Run()
	}

	start := time.Now()
	stop := heartbeat.Every(buildReport, func(elapsed time.Duration) {
		r.progress.printf("still building %s %s (%s)", r.component, r.version, elapsed)
	})
	err = build(env)
	// Each retry can meet more of them (1.27's cloud-provider needs controller-manager, which
	// go only looks at once cloud-provider is in): retry while the list grows.
	for known := 0; err != nil; {
		unknown := unknownToSumDB(logPath)
		if len(unknown) == known {
			break
		}
		known = len(unknown)
		r.progress.printf("the checksum database does not know %s (published by Kubernetes from the tag of %s, served by the Go module proxy): building again without checking them against it",
			strings.Join(unknown, ", "), r.version)
		err = build(append(env[:len(env):len(env)], "GONOSUMDB="+strings.Join(modulePaths(unknown), ",")))
	}
	stop()
	if err != nil {
		return buildError(r, err, logPath)
	}
	if r.toolchain != "" {
		r.progress.printf("built %s %s with Go toolchain %s in %s", r.component, r.version, r.toolchain, time.Since(start).Round(time.Second))
	} else {
		r.progress.printf("built %s %s in %s", r.component, r.version, time.Since(start).Round(time.Second))
	}
	return nil
}

// goBuildCommand is the go build of r's component in the wrapper module at work, with the
// environment env (goEnv, with the release's GOTOOLCHAIN when it needs one).
func goBuildCommand(ctx context.Context, r request, mod kubernetesModuleInfo, work string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, goCommand, "build", "-trimpath", "-tags", buildTags,
		"-ldflags", versionLDFlags(r.version, mod.time, mod.commit),
		"-o", r.out, "k8s.io/kubernetes/cmd/"+string(r.component))
	cmd.Dir = work
	cmd.Env = env
	return cmd
}

// sumDBUnknown matches go's complaint about a module the checksum database has no
// record of: "verifying module: k8s.io/cloud-provider@v0.27.16: reading
// https://.../sumdb/sum.golang.org/lookup/k8s.io/cloud-provider@v0.27.16: 404 Not Found".
var sumDBUnknown = regexp.MustCompile(`verifying module: (k8s\.io/[^@\s]+@v[^:\s]+): reading \S+/lookup/\S+: 404 Not Found`)

// unknownToSumDB lists the modules (path@version) a failed build could not verify
// because the checksum database does not know them. Seen for the staging modules of
// 1.27 (k8s.io/cloud-provider, legacy-cloud-providers, ...): the proxy serves them, the
// database never recorded them. Only Kubernetes' own k8s.io/ modules are let through
// so: anything else stays a failure.
func unknownToSumDB(logPath string) []string {
	var out []string
	for _, m := range logMatches(logPath, sumDBUnknown) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// logMatches is every match of re in the log at logPath, once per module (its first
// group), in the order go printed them; nil when the log cannot be read.
func logMatches(logPath string, re *regexp.Regexp) [][]string {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out [][]string
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m)
		}
	}
	return out
}

// modulePaths drops the versions of path@version.
func modulePaths(mods []string) []string {
	out := make([]string, len(mods))
	for i, m := range mods {
		out[i], _, _ = strings.Cut(m, "@")
	}
	return out
}

// buildError keeps the full log (the work directory is about to be removed)
// and puts its tail in the error, since that is where go says what broke.
func buildError(r request, runErr error, logPath string) error {
	out, _ := os.ReadFile(logPath)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	kept := filepath.Join(r.cacheDir, "logs", fmt.Sprintf("build-%s-%s.log", r.component, r.version))
	where := "not kept"
	if os.MkdirAll(filepath.Dir(kept), 0o755) == nil && os.WriteFile(kept, out, 0o644) == nil {
		where = kept
	}
	with := ""
	if r.toolchain != "" {
		with = " (with GOTOOLCHAIN=" + r.toolchain + ", the Go this version needs)"
	}
	if cause := unservedCause(r, logPath); cause != "" {
		return fmt.Errorf("%sgo build of k8s.io/kubernetes/cmd/%s@%s%s failed: %v (full log: %s)", cause, r.component, r.version, with, runErr, where)
	}
	return fmt.Errorf("go build of k8s.io/kubernetes/cmd/%s@%s%s failed: %v\n--- last lines of go's output (full log: %s) ---\n%s\n---\n"+
		"check that the Go module proxy is reachable (go env GOPROXY) and that your go is at least what kubernetes %s's go.mod requires (go version); "+
		"or use the official binary (Source \"download\"), or name a binary you have in $%s (%s@%s=/path/to/%s)",
		r.component, r.version, with, runErr, where, strings.Join(lines, "\n"), r.version, envBinaries, r.component, r.version, r.component)
}

// kubernetesModuleInfo is what the build needs to know about the downloaded
// k8s.io/kubernetes module.
type kubernetesModuleInfo struct {
	goMod  []byte
	zip    string    // the module's zip in the module cache (its .go-version is read from it)
	time   time.Time // the tag's time, used as the build date so rebuilds are reproducible
	commit string    // the tagged commit, when the proxy reports it
}

// goTooNewError is go mod download's refusal of a module whose go.mod requires a newer
// Go than the one running ("k8s.io/kubernetes@v1.38.0-beta.0 requires go >= 1.27.0
// (running go 1.26.8; GOTOOLCHAIN=local)"). The module's go.mod and zip are in the module
// cache all the same, so the build can pick the toolchain that go.mod asks for.
type goTooNewError struct{ msg string }

func (e *goTooNewError) Error() string { return e.msg }

// downloadKubernetes fetches k8s.io/kubernetes@version into the module cache
// (the build needs its source anyway) with the environment env and returns its go.mod.
// When go refuses it as too new for the running go (a *goTooNewError), what it did
// download is returned with the error.
func downloadKubernetes(ctx context.Context, dir, version string, env []string) (kubernetesModuleInfo, error) {
	var info kubernetesModuleInfo
	// dir has no go.mod yet, so this downloads the module without a main module.
	cmd := exec.CommandContext(ctx, goCommand, "mod", "download", "-json", kubernetesModule+"@"+version)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	// go prints the JSON, including an Error field, even when it fails.
	var m struct {
		Info, GoMod, Zip, Error string
	}
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil || (runErr != nil && m.Error == "") {
		return info, fmt.Errorf("go mod download %s@%s failed: %v: %s%s; check that the Go module proxy is reachable (go env GOPROXY)",
			kubernetesModule, version, runErr, strings.TrimSpace(stderr.String()), strings.TrimSpace(stdout.String()))
	}
	var tooNew error
	if m.Error != "" {
		if !strings.Contains(m.Error, "requires go >= ") || m.GoMod == "" {
			return info, fmt.Errorf("go mod download %s@%s failed: %s", kubernetesModule, version, m.Error)
		}
		tooNew = &goTooNewError{msg: fmt.Sprintf("go mod download %s@%s failed: %s; install the Go it requires and put it first on PATH", kubernetesModule, version, m.Error)}
	}
	data, err := os.ReadFile(m.GoMod)
	if err != nil {
		return info, fmt.Errorf("reading go.mod of %s@%s: %w", kubernetesModule, version, err)
	}
	info.goMod, info.zip = data, m.Zip
	if raw, err := os.ReadFile(m.Info); err == nil {
		var i struct {
			Time   time.Time
			Origin struct{ Hash string }
		}
		if json.Unmarshal(raw, &i) == nil {
			info.time, info.commit = i.Time, i.Origin.Hash
		}
	}
	return info, tooNew
}

// wrapperGoMod writes the go.mod of the wrapper module that builds
// k8s.io/kubernetes@version. It copies kubernetes' go and godebug lines (the
// main module's go line sets language semantics and GODEBUG defaults, which
// should be what kubernetes was released with) and its replace block, with
// each ./staging/src/<module> replacement turned into the published module at
// v0.<minor>.<patch>, the version staging modules are tagged with.
func wrapperGoMod(kubeGoMod []byte, version string) ([]byte, error) {
	k, err := modfile.Parse("k8s.io/kubernetes@"+version+"/go.mod", kubeGoMod, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing go.mod of %s@%s: %w", kubernetesModule, version, err)
	}
	staging, err := stagingVersion(version)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("// Generated by skewcheck to build " + kubernetesModule + "@" + version + ".\n\n")
	b.WriteString("module skewcheck.local/build\n\n")
	if k.Go != nil {
		fmt.Fprintf(&b, "go %s\n\n", k.Go.Version)
	}
	for _, g := range k.Godebug {
		fmt.Fprintf(&b, "godebug %s=%s\n\n", g.Key, g.Value)
	}
	fmt.Fprintf(&b, "require %s %s\n\n", kubernetesModule, version)
	if len(k.Replace) > 0 {
		b.WriteString("replace (\n")
		for _, r := range k.Replace {
			old := modfile.AutoQuote(r.Old.Path)
			if r.Old.Version != "" {
				old += " " + r.Old.Version
			}
			var repl string
			switch {
			case r.New.Version != "":
				repl = modfile.AutoQuote(r.New.Path) + " " + r.New.Version
			case r.New.Path == "./staging/src/"+r.Old.Path:
				repl = modfile.AutoQuote(r.Old.Path) + " " + staging
			default:
				return nil, fmt.Errorf("go.mod of %s@%s replaces %s with %s, a directory that is not a published staging module; skewcheck cannot build this version from the module proxy (use Source \"download\")",
					kubernetesModule, version, r.Old.Path, r.New.Path)
			}
			fmt.Fprintf(&b, "\t%s => %s\n", old, repl)
		}
		b.WriteString(")\n")
	}
	out := []byte(b.String())
	// Parse what we wrote, so a mistake here shows up as a clear error and not
	// as a confusing one from go build.
	if _, err := modfile.Parse("go.mod", out, nil); err != nil {
		return nil, fmt.Errorf("generated wrapper go.mod is invalid: %w", err)
	}
	return out, nil
}

// stagingVersion maps v1.36.3 to v0.36.3 (and v1.37.0-rc.1 to v0.37.0-rc.1):
// the staging modules are tagged kubernetes-1.36.3 and published as v0.36.3.
func stagingVersion(version string) (string, error) {
	if semver.Major(version) != "v1" {
		return "", fmt.Errorf("cannot build Kubernetes %s: only v1.x versions have published staging modules", version)
	}
	return "v0." + strings.TrimPrefix(version, "v1."), nil
}

// versionLDFlags stamps the version like kubernetes' hack/lib/version.sh
// does; without it the binary says v0.0.0-master, and version skew is the
// whole point of skewcheck. -s -w drop symbols, as release builds do.
func versionLDFlags(version string, date time.Time, commit string) string {
	if date.IsZero() {
		date = time.Now()
	}
	vars := [][2]string{
		{"gitVersion", version},
		{"gitMajor", strings.TrimPrefix(semver.Major(version), "v")},
		{"gitMinor", strings.TrimPrefix(strings.TrimPrefix(semver.MajorMinor(version), semver.Major(version)), ".")},
		{"gitTreeState", "clean"},
		{"buildDate", date.UTC().Format("2006-01-02T15:04:05Z")},
	}
	if commit != "" {
		vars = append(vars, [2]string{"gitCommit", commit})
	}
	flags := []string{"-s", "-w"}
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, kv := range vars {
			flags = append(flags, "-X", pkg+"."+kv[0]+"="+kv[1])
		}
	}
	return strings.Join(flags, " ")
}
