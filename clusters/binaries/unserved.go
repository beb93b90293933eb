package binaries

import (
	"fmt"
	"regexp"
	"strings"
)

// proxyRefused matches go's complaint about a module the Go module proxy refuses to serve:
// "k8s.io/apiextensions-api@v0.38.0-beta.0: reading
// https://proxy.golang.org/k8s.io/apiextensions-api/@v/v0.38.0-beta.0.zip: 403 Forbidden"
// (a proxy that serves only some modules), or 404 and 410 for one that does not have it.
// The checksum database's 404 (.../lookup/...) is another matter: unknownToSumDB.
var proxyRefused = regexp.MustCompile(`(?m)\s([^\s:@]+@v[^\s:]+): reading \S+/@v/\S+: (403 Forbidden|404 Not Found|410 Gone)\s*$`)

// unservedModules lists, once each, the modules (path@version) a failed build could not
// get because the proxy refused them, with the answer it gave.
func unservedModules(logPath string) []string {
	var out []string
	for _, m := range logMatches(logPath, proxyRefused) {
		out = append(out, m[1]+" ("+m[2]+")")
	}
	return out
}

// unservedCause is the one-line cause of a build that failed because the proxy does not
// serve a module the release needs (1.38.0-beta.0 moved the CRD types into the new module
// k8s.io/apiextensions-api, which a proxy may not have): no Go version or retry helps, so
// the error says so before go's output, instead of the generic advice ("" when no module
// was refused).
func unservedCause(r request, logPath string) string {
	mods := unservedModules(logPath)
	if len(mods) == 0 {
		return ""
	}
	return fmt.Sprintf("kubernetes %s needs %s, which the Go module proxy (go env GOPROXY) does not serve: %s cannot be built from this proxy; "+
		"use the official binary (Source \"download\", where dl.k8s.io is reachable) or name a binary you have in $%s (%s@%s=/path/to/%s)\n",
		r.version, strings.Join(mods, ", "), r.component, envBinaries, r.component, r.version, r.component)
}
