package binaries

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/mod/semver"
)

// kubernetesModule is the module whose tags are the Kubernetes releases. Its
// version list on the Go module proxy is the authority for what "1.36" or
// "latest" means, because a version we can name there is a version we can build.
const kubernetesModule = "k8s.io/kubernetes"

// versionHint tells a user how to name a version; every version error ends with it.
const versionHint = `give an exact version such as v1.36.3 or a prerelease such as v1.38.0-beta.0, a minor such as 1.36 (its newest patch release), or "latest"`

// resolver turns user input into an exact version. The version listing and the
// look-up of one version are fields so Resolve's logic is tested with fakes and no
// network.
type resolver struct {
	list func(ctx context.Context) ([]string, error)
	// exists asks for one exact version. A proxy's list can be partial (a mirror
	// lists the versions it has been asked for: here v1.29.6 but not v1.29.15, which
	// it serves all the same), so an exact version missing from the list is asked for
	// by name before it is refused. nil: the list is the whole truth.
	exists func(ctx context.Context, version string) (bool, error)
}

var defaultResolver = resolver{list: goListVersions, exists: goVersionExists}

// Resolve turns what a user typed into an exact release version: "v1.35.4" and
// "1.35.4" give "v1.35.4"; "1.36" or "v1.36" give the newest non-prerelease
// v1.36.x on the Go module proxy; "latest" gives the newest release. An exact
// prerelease (v1.37.0-rc.1) is accepted only when it exists. When the proxy
// cannot be asked, an exact version is returned as given, so that cached
// binaries work offline.
func Resolve(ctx context.Context, version string) (string, error) {
	return defaultResolver.resolve(ctx, version, "Kubernetes")
}

// query is a parsed version request.
type query struct {
	input  string
	v      string // canonical with leading "v"; for a minor query "v1.36", for a major "v1"
	exact  bool
	latest bool
}

// parseQuery checks the syntax of a version request without the network.
func parseQuery(input string) (query, error) {
	s := strings.TrimSpace(input)
	q := query{input: input}
	if s == "" {
		return q, fmt.Errorf("no Kubernetes version given; %s", versionHint)
	}
	if strings.EqualFold(s, "latest") {
		q.latest = true
		return q, nil
	}
	if !strings.HasPrefix(s, "v") {
		s = "v" + s
	}
	if !semver.IsValid(s) || semver.Build(s) != "" {
		return q, fmt.Errorf("%q is not a Kubernetes version; %s", input, versionHint)
	}
	// semver accepts the shorthands v1 and v1.36; count the dots of the
	// numeric part to tell a shorthand from a full version.
	core := strings.TrimSuffix(s, semver.Prerelease(s))
	// (semver rejects a shorthand with a prerelease, such as v1.37-rc.1.)
	if strings.Count(core, ".") == 2 {
		q.v, q.exact = s, true
	} else {
		q.v = core
	}
	return q, nil
}

// exactVersion reports whether input names one exact version, and its
// canonical form. Ensure uses it to skip the network for cache hits.
func exactVersion(input string) (string, bool) {
	q, err := parseQuery(input)
	if err != nil || !q.exact {
		return "", false
	}
	return q.v, true
}

// resolve is Resolve with the listing injected; label names what is being
// resolved in errors ("Kubernetes", "kube-apiserver").
func (r resolver) resolve(ctx context.Context, input, label string) (string, error) {
	q, err := parseQuery(input)
	if err != nil {
		return "", err
	}
	all, err := r.list(ctx)
	if err != nil {
		if q.exact && ctx.Err() == nil {
			// Offline (or proxy down), an exact version cannot be checked but
			// needs no resolving either; Ensure still finds cached or explicit
			// binaries, and says clearly if it cannot build or download.
			return q.v, nil
		}
		return "", err
	}
	var known, releases []string
	for _, v := range all {
		if semver.IsValid(v) {
			known = append(known, v)
			if semver.Prerelease(v) == "" {
				releases = append(releases, v)
			}
		}
	}
	semver.Sort(known)
	semver.Sort(releases)

	switch {
	case q.latest:
		if len(releases) == 0 {
			return "", fmt.Errorf("no %s release: the Go module proxy lists no release of %s; check GOPROXY (go env GOPROXY)", label, kubernetesModule)
		}
		return releases[len(releases)-1], nil
	case q.exact:
		for _, v := range known {
			if v == q.v {
				return v, nil
			}
		}
		if r.exists != nil {
			ok, err := r.exists(ctx, q.v)
			if err != nil {
				return "", err
			}
			if ok {
				return q.v, nil
			}
		}
		mm := semver.MajorMinor(q.v)
		var near []string
		for _, v := range known {
			// Show prereleases of the minor only to someone who asked for one.
			if semver.MajorMinor(v) == mm && (semver.Prerelease(v) == "" || semver.Prerelease(q.v) != "") {
				near = append(near, v)
			}
		}
		msg := fmt.Sprintf("no %s %s: %s has no such version on the Go module proxy; ", label, q.v, kubernetesModule)
		if len(near) > 0 {
			msg += fmt.Sprintf("releases of %s: %s", strings.TrimPrefix(mm, "v"), strings.Join(near, ", "))
		} else {
			msg += fmt.Sprintf("it has no release of %s; %s", strings.TrimPrefix(mm, "v"), newest(releases))
		}
		return "", fmt.Errorf("%s; %s", msg, versionHint)
	default:
		var match string
		for _, v := range releases {
			if strings.HasPrefix(v, q.v+".") {
				match = v // releases is ascending, so the last match is the newest
			}
		}
		if match == "" {
			// A minor whose release is still to come may have prereleases: they are never
			// chosen for a minor (whoever asks for 1.38 wants a release), but named, so
			// that the way to test one is plain.
			var pre []string
			for _, v := range known {
				if semver.Prerelease(v) != "" && strings.HasPrefix(v, q.v+".") {
					pre = append(pre, v)
				}
			}
			if len(pre) > 0 {
				return "", fmt.Errorf("no %s %s: %s has no release of %s on the Go module proxy yet, only prereleases: %s; name one exactly (%s) to test it, or %s",
					label, strings.TrimPrefix(q.v, "v"), kubernetesModule, strings.TrimPrefix(q.v, "v"), strings.Join(pre, ", "), pre[len(pre)-1], versionHint)
			}
			return "", fmt.Errorf("no %s %s: %s has no release of %s on the Go module proxy; %s; %s",
				label, strings.TrimPrefix(q.v, "v"), kubernetesModule, strings.TrimPrefix(q.v, "v"), newest(releases), versionHint)
		}
		return match, nil
	}
}

// newest describes the newest few releases, for errors about unknown versions.
func newest(releases []string) string {
	if len(releases) == 0 {
		return "the proxy lists no releases at all (check GOPROXY: go env GOPROXY)"
	}
	n := min(5, len(releases))
	top := make([]string, 0, n)
	for i := len(releases) - 1; i >= len(releases)-n; i-- {
		top = append(top, releases[i])
	}
	return "newest releases: " + strings.Join(top, ", ")
}

// goVersionExists asks the go command for one version of the module: it answers
// for a version the proxy serves even when its list leaves it out. "not available"
// and "unknown revision" are a clear no; anything else is an error to show.
func goVersionExists(ctx context.Context, version string) (bool, error) {
	cmd := exec.CommandContext(ctx, goCommand, "list", "-m", "-json", kubernetesModule+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not available") || strings.Contains(msg, "unknown revision") || strings.Contains(msg, "invalid version") {
			return false, nil
		}
		return false, fmt.Errorf("looking up %s@%s (go list -m %s@%s) failed: %v: %s; check that the Go module proxy is reachable (go env GOPROXY)",
			kubernetesModule, version, kubernetesModule, version, err, msg)
	}
	return true, nil
}

// goListVersions asks the go command, so GOPROXY, GONOPROXY, GOPRIVATE and
// netrc settings apply exactly as they do for the build.
func goListVersions(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, goCommand, "list", "-m", "-versions", "-json", kubernetesModule)
	// Run outside any module so a go.mod or go.work around the caller cannot
	// change the answer.
	cmd.Dir = os.TempDir()
	cmd.Env = goEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("listing versions of %s (go list -m -versions %s) failed: %v: %s; check that the Go module proxy is reachable (go env GOPROXY), or pass an exact version whose binary is cached or named in $%s",
			kubernetesModule, kubernetesModule, err, strings.TrimSpace(stderr.String()), envBinaries)
	}
	var m struct{ Versions []string }
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("listing versions of %s: cannot parse go list output: %v", kubernetesModule, err)
	}
	return m.Versions, nil
}
