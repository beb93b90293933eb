package upgrade

import (
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
)

// Upgrade and Downgrade are the directions of a hop; Restart, of a watched hop whose
// servers restarted at the version they ran (Observe).
const (
	Upgrade   = "upgrade"
	Downgrade = "downgrade"
	Restart   = "restart"
)

// ParsePath reads a comma-separated list of versions, the versions a cluster goes through:
// every server starts at the first, and each next one is a hop. A path needs two versions
// at least, and two neighbours must differ (a hop to the same version restarts nothing new).
func ParsePath(s string) ([]string, error) {
	var path []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			path = append(path, v)
		}
	}
	if len(path) < 2 {
		return nil, fmt.Errorf("path %q: name at least two versions, the first every server starts at, e.g. v1.35.4,v1.36.3,v1.35.4", s)
	}
	for i := 1; i < len(path); i++ {
		if framework.CompareVersions(path[i-1], path[i]) == 0 {
			return nil, fmt.Errorf("path %q: hop %d goes from %s to %s, the same version; drop one of them", s, i, path[i-1], path[i])
		}
	}
	return path, nil
}

// RoundTrip is the path from, to, from, to: an upgrade, the downgrade back (the rollback of
// a failed upgrade), and the upgrade again, onto data the older version has written.
func RoundTrip(from, to string) []string { return []string{from, to, from, to} }

// Direction says whether a hop from one version to another is an upgrade or a downgrade.
func Direction(from, to string) string {
	if framework.CompareVersions(to, from) < 0 {
		return Downgrade
	}
	return Upgrade
}
