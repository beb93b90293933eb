package binaries

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"go/version"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/modfile"
)

// A release's go.mod says which Go it needs (v1.38.0-beta.0: "go 1.27.0"). When the
// machine's go is older, the build runs with that release's toolchain through GOTOOLCHAIN,
// in the build's own environment: the go command fetches it from the Go module proxy
// (golang.org/toolchain, about 76 MB) into the module cache once, and every later build
// takes it from there. Neither skewcheck's go.mod nor the user's environment changes.

// toolchainChoice is the Go a release's build needs and the toolchain it runs with.
type toolchainChoice struct {
	Need      string // the go line's version, "1.27.0"; "" when go.mod has none
	Toolchain string // what GOTOOLCHAIN is set to, "go1.27.3"; "" when the machine's go will do
	From      string // where Toolchain comes from, for the progress line and errors
}

// chooseToolchain decides the toolchain of a build from the release's go.mod, its
// .go-version ("" when it has none) and the machine's go (have, "go1.26.8").
//
// The go line is the minimum: a machine whose go is at least that builds with it, as
// before (a toolchain line or .go-version naming something newer is not a reason to fetch
// anything). A machine whose go is older builds with, in order:
//   - the go.mod's toolchain line, when it is at least the go line (go's own choice);
//   - the release's .go-version, when it is at least the go line: the Go Kubernetes builds
//     that release with (hack/lib/golang.sh sets GOTOOLCHAIN=go$(cat .go-version)), so the
//     binary is compiled as the released one was (v1.38.0-beta.0: 1.27.3);
//   - the go line's version as a release: "go 1.27.0" is go1.27.0, and "go 1.27" (a
//     language version, which is no toolchain name from 1.21 on) is go1.27.0 too.
//
// A machine version go cannot compare ("devel ...") is taken as new enough: whoever runs a
// development toolchain chose it.
func chooseToolchain(kubeGoMod []byte, goVersionFile, have string) (toolchainChoice, error) {
	f, err := modfile.Parse("go.mod", kubeGoMod, nil)
	if err != nil {
		return toolchainChoice{}, fmt.Errorf("parsing go.mod: %w", err)
	}
	if f.Go == nil || f.Go.Version == "" {
		return toolchainChoice{}, nil
	}
	c := toolchainChoice{Need: f.Go.Version}
	need := "go" + c.Need
	if !version.IsValid(need) {
		return c, fmt.Errorf("go.mod says go %s, which is not a Go version", c.Need)
	}
	if !version.IsValid(have) || version.Compare(have, need) >= 0 {
		return c, nil
	}
	if f.Toolchain != nil && version.IsValid(f.Toolchain.Name) && version.Compare(f.Toolchain.Name, need) >= 0 {
		c.Toolchain, c.From = f.Toolchain.Name, "its go.mod's toolchain line"
		return c, nil
	}
	if gv := "go" + strings.TrimPrefix(strings.TrimSpace(goVersionFile), "go"); goVersionFile != "" && version.IsValid(gv) &&
		version.Lang(gv) != gv && version.Compare(gv, need) >= 0 {
		c.Toolchain, c.From = gv, "its .go-version, the Go Kubernetes builds it with"
		return c, nil
	}
	c.Toolchain, c.From = toolchainName(c.Need), "its go.mod's go line"
	return c, nil
}

// toolchainName is the release a go line names: "1.27.0" and "1.27rc1" as they are, and a
// language version ("1.27") its first release, go1.27.0. Before 1.21 a language version
// was its own release (go1.20).
func toolchainName(goLine string) string {
	v := "go" + goLine
	if version.Lang(v) == v && version.Compare(v, "go1.21") >= 0 {
		return v + ".0"
	}
	return v
}

// needs is the go line for messages: "go 1.27", the version users call it by.
func (c toolchainChoice) needs() string {
	return "go " + strings.TrimPrefix(version.Lang("go"+c.Need), "go")
}

// toolchainEnv is the environment of a build with toolchain: base with GOTOOLCHAIN set
// (the last value of a key wins, so it overrides the user's GOTOOLCHAIN=local or auto for
// this command only); base as it is when toolchain is "".
func toolchainEnv(base []string, toolchain string) []string {
	if toolchain == "" {
		return base
	}
	return append(base[:len(base):len(base)], "GOTOOLCHAIN="+toolchain)
}

// toolchainModule is where the go command fetches toolchain from, for messages and the
// check for one already in the module cache.
func toolchainModule(toolchain string) (path, ver string) {
	return "golang.org/toolchain", "v0.0.1-" + toolchain + "." + runtime.GOOS + "-" + runtime.GOARCH
}

// machineGo is what the go command on PATH says it is, and where its module cache is, in
// the environment builds run in (a user's GOTOOLCHAIN=go1.27.3 makes it that version).
func machineGo(ctx context.Context) (goVersion, modCache string, err error) {
	cmd := exec.CommandContext(ctx, goCommand, "env", "GOVERSION", "GOMODCACHE")
	cmd.Dir = os.TempDir()
	cmd.Env = goEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("go env GOVERSION GOMODCACHE failed: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 2 {
		return "", "", fmt.Errorf("go env GOVERSION GOMODCACHE printed %q, not two lines", stdout.String())
	}
	return strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1]), nil
}

// goVersionFile is the .go-version in the release's module zip, "" when it has none.
func goVersionFile(zipPath, version string) string {
	if zipPath == "" {
		return ""
	}
	z, err := zip.OpenReader(zipPath)
	if err != nil {
		return ""
	}
	defer z.Close()
	f, err := z.Open(kubernetesModule + "@" + version + "/.go-version")
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// buildToolchain decides the toolchain of r's build from the release's go.mod and, when it
// is not the machine's go, makes sure the go command has it: it says so ("fetching Go
// toolchain go1.27.3 for kube-apiserver v1.38.0-beta.0 (needs go 1.27; ...)") and runs
// `go version` with GOTOOLCHAIN set, which downloads it into the module cache the first
// time and finds it there afterwards. It returns the choice; the build's environment is
// toolchainEnv(goEnv(), choice.Toolchain).
func buildToolchain(ctx context.Context, r request, mod kubernetesModuleInfo) (toolchainChoice, error) {
	have, modCache, err := machineGo(ctx)
	if err != nil {
		return toolchainChoice{}, fmt.Errorf("cannot tell which Go builds %s %s: %w", r.component, r.version, err)
	}
	c, err := chooseToolchain(mod.goMod, goVersionFile(mod.zip, r.version), have)
	if err != nil {
		return c, fmt.Errorf("%s %s: %s@%s's %w", r.component, r.version, kubernetesModule, r.version, err)
	}
	if c.Toolchain == "" {
		return c, nil
	}
	path, ver := toolchainModule(c.Toolchain)
	if st, err := os.Stat(filepath.Join(modCache, path+"@"+ver, "bin")); err == nil && st.IsDir() {
		r.progress.printf("building %s %s with Go toolchain %s (it needs %s; this machine's go is %s; the toolchain is in the module cache)",
			r.component, r.version, c.Toolchain, c.needs(), have)
	} else {
		r.progress.printf("fetching Go toolchain %s for %s %s (needs %s; this machine's go is %s; %s@%s from the Go module proxy, about 76 MB, once: the module cache keeps it)",
			c.Toolchain, r.component, r.version, c.needs(), have, path, ver)
	}
	cmd := exec.CommandContext(ctx, goCommand, "version")
	cmd.Dir = os.TempDir()
	cmd.Env = toolchainEnv(goEnv(), c.Toolchain)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if runErr == nil && !strings.Contains(out.String(), "go version "+c.Toolchain+" ") {
		runErr = fmt.Errorf("it printed %q, not go version %s", strings.TrimSpace(out.String()), c.Toolchain)
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
		return c, toolchainError(r, c, have, runErr, out.String())
	}
	return c, nil
}

// toolchainError says that a release's toolchain could not be had: which release, the Go
// it needs, the toolchain tried and how, go's words, and what to do.
func toolchainError(r request, c toolchainChoice, have string, runErr error, output string) error {
	path, ver := toolchainModule(c.Toolchain)
	lines := strings.Split(strings.TrimSpace(output), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return fmt.Errorf("cannot build %s %s: it needs %s (its go.mod says go %s) and this machine's go is %s, "+
		"and the Go toolchain %s (chosen from %s) could not be fetched from the Go module proxy as %s@%s: GOTOOLCHAIN=%s go version failed: %v: %s; "+
		"make the Go module proxy reachable (go env GOPROXY), or install Go %s (or any Go at least %s) and put its go first on PATH, "+
		"or use the official binary (Source \"download\"), or name a binary you have in $%s (%s@%s=/path/to/%s)",
		r.component, r.version, c.needs(), c.Need, have,
		c.Toolchain, c.From, path, ver, c.Toolchain, runErr, strings.Join(lines, " / "),
		strings.TrimPrefix(c.Toolchain, "go"), c.Need, envBinaries, r.component, r.version, r.component)
}
