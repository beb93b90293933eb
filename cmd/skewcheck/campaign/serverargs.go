package campaign

import (
	"strconv"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
)

// serverArgs are the conformance flags of a cluster of these servers (one of the shapes of
// package clusters): --versions in order, then each server's extra flags as --server-flag
// N=FLAG. The shapes set nothing else of a ServerSpec, so nothing else is written.
func serverArgs(servers []clusters.ServerSpec) []string {
	versions := make([]string, len(servers))
	for i, s := range servers {
		versions[i] = s.Version
	}
	args := []string{"--versions", strings.Join(versions, ",")}
	for i, s := range servers {
		for _, f := range s.ExtraFlags {
			args = append(args, "--server-flag", strconv.Itoa(i+1)+"="+f)
		}
	}
	return args
}
