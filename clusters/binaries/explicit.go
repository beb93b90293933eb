package binaries

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// envBinaries names binaries to use instead of the cache, e.g.
// "kube-apiserver@v1.36.3=/p,kube-apiserver@v1.35.4=/q": for testing a
// locally patched build, or machines that cannot build or download.
const envBinaries = "SKEWCHECK_BINARIES"

// explicitBinary is a binary the user named, and whether they named it in the environment
// (for errors).
type explicitBinary struct {
	path    string
	fromEnv bool
}

// ErrNamedBinary is something wrong with a binary named to Ensure (Options.Paths) or in
// $SKEWCHECK_BINARIES, rather than one skewcheck builds or downloads. A program that fills
// Options.Paths from its own flags words it with them.
type ErrNamedBinary struct {
	// Key and Path are the entry as given: component@version and the binary's path.
	Key, Path string
	// FromEnv says the entry is $SKEWCHECK_BINARIES's, else Options.Paths'.
	FromEnv bool
	// Problem says what is wrong with it and what to do.
	Problem string
}

func (e ErrNamedBinary) Error() string {
	origin := "Options.Paths"
	if e.FromEnv {
		origin = "$" + envBinaries
	}
	return fmt.Sprintf("%s entry %s=%s: %s", origin, e.Key, e.Path, e.Problem)
}

// explicitPath looks up component@version in opts.Paths, then in
// $SKEWCHECK_BINARIES: what a caller passes explicitly (typically from a
// command-line flag) is more specific than the environment. Keys are
// normalised, so "kube-apiserver@1.36.3" matches v1.36.3. A malformed entry
// is an error even if it is for another binary: silently ignoring it would
// make skewcheck build something the user meant to replace.
func explicitPath(c Component, version string, opts Options) (explicitBinary, bool, error) {
	key := string(c) + "@" + version
	fromOpts, err := normaliseBinaries(opts.Paths, false)
	if err != nil {
		return explicitBinary{}, false, err
	}
	if p, ok := fromOpts[key]; ok {
		return explicitBinary{p, false}, true, nil
	}
	fromEnv, err := parseBinariesEnv(os.Getenv(envBinaries))
	if err != nil {
		return explicitBinary{}, false, err
	}
	if p, ok := fromEnv[key]; ok {
		return explicitBinary{p, true}, true, nil
	}
	return explicitBinary{}, false, nil
}

// parseBinariesEnv parses "c@v=path,c@v=path".
func parseBinariesEnv(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		k, p, ok := strings.Cut(entry, "=")
		if !ok {
			return nil, fmt.Errorf("$%s entry %q is not <component>@<version>=<path>, e.g. kube-apiserver@v1.36.3=/usr/local/bin/kube-apiserver", envBinaries, entry)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(p)
	}
	return normaliseBinaries(m, true)
}

// normaliseBinaries checks keys and canonicalises them to component@vX.Y.Z,
// and makes paths absolute so they mean the same from any directory.
func normaliseBinaries(in map[string]string, fromEnv bool) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, p := range in {
		c, v, ok := strings.Cut(k, "@")
		exact, isExact := exactVersion(v)
		if !ok || !Component(c).known() || !isExact || p == "" {
			return nil, ErrNamedBinary{Key: k, Path: p, FromEnv: fromEnv, Problem: fmt.Sprintf(
				"not <component>@<exact version>=<path>, e.g. kube-apiserver@v1.36.3=/usr/local/bin/kube-apiserver (components: %s)", knownComponents())}
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out[c+"@"+exact] = p
	}
	return out, nil
}
