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

// explicitBinary is a binary the user named, and where they named it (for errors).
type explicitBinary struct {
	path, origin string
}

// explicitPath looks up component@version in opts.Paths, then in
// $SKEWCHECK_BINARIES: what a caller passes explicitly (typically from a
// command-line flag) is more specific than the environment. Keys are
// normalised, so "kube-apiserver@1.36.3" matches v1.36.3. A malformed entry
// is an error even if it is for another binary: silently ignoring it would
// make skewcheck build something the user meant to replace.
func explicitPath(c Component, version string, opts Options) (explicitBinary, bool, error) {
	key := string(c) + "@" + version
	origin := opts.PathsFrom
	if origin == "" {
		origin = "Options.Paths"
	}
	fromOpts, err := normaliseBinaries(opts.Paths, origin)
	if err != nil {
		return explicitBinary{}, false, err
	}
	if p, ok := fromOpts[key]; ok {
		return explicitBinary{p, origin}, true, nil
	}
	fromEnv, err := parseBinariesEnv(os.Getenv(envBinaries))
	if err != nil {
		return explicitBinary{}, false, err
	}
	if p, ok := fromEnv[key]; ok {
		return explicitBinary{p, "$" + envBinaries}, true, nil
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
	return normaliseBinaries(m, "$"+envBinaries)
}

// normaliseBinaries checks keys and canonicalises them to component@vX.Y.Z,
// and makes paths absolute so they mean the same from any directory.
func normaliseBinaries(in map[string]string, origin string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, p := range in {
		c, v, ok := strings.Cut(k, "@")
		exact, isExact := exactVersion(v)
		if !ok || !Component(c).known() || !isExact || p == "" {
			return nil, fmt.Errorf("%s entry %q=%q is not <component>@<exact version>=<path>, e.g. kube-apiserver@v1.36.3=/usr/local/bin/kube-apiserver (components: %s)",
				origin, k, p, knownComponents())
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out[c+"@"+exact] = p
	}
	return out, nil
}
