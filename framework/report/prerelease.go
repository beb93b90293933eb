package report

import (
	"fmt"
	"strings"
)

// PrereleaseNote is the console's line about a run that used a Kubernetes prerelease, ""
// for one that did not: "prerelease: apiserver-2 runs v1.38.0-beta.0, a Kubernetes
// prerelease: what this run found holds for that build, and the release may differ".
func PrereleaseNote(c *Conformance) string {
	var which []string
	for _, e := range c.Endpoints {
		if e.Prerelease {
			which = append(which, e.Name+" runs "+e.Version)
		}
	}
	if len(which) == 0 {
		return ""
	}
	a := "a Kubernetes prerelease"
	if len(which) > 1 {
		a = "Kubernetes prereleases"
	}
	return fmt.Sprintf("prerelease: %s, %s: what this run found holds for that build, and the release may differ", strings.Join(which, ", "), a)
}
