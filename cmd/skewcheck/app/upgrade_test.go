//go:build !incluster

package app

import (
	"slices"
	"testing"
)

// --from and --to are the one-way path, --round-trip goes back and forth twice, --path
// names every version.
func TestUpgradePath(t *testing.T) {
	for _, c := range []struct {
		path, from, to      string
		roundTrip, fromOrTo bool
		want                []string
	}{
		{"", "v1.35.4", "v1.36.3", false, false, []string{"v1.35.4", "v1.36.3"}},
		{"", "v1.36.3", "v1.35.4", false, true, []string{"v1.36.3", "v1.35.4"}},
		{"", "v1.35.4", "v1.36.3", true, true, []string{"v1.35.4", "v1.36.3", "v1.35.4", "v1.36.3"}},
		{"v1.36.3,v1.35.4,v1.36.3", "v1.35.4", "v1.36.3", false, false, []string{"v1.36.3", "v1.35.4", "v1.36.3"}},
		// Prereleases as users write them, with or without the v.
		{"", "v1.37.2", "v1.38.0-beta.0", false, true, []string{"v1.37.2", "v1.38.0-beta.0"}},
		{"", "v1.38.0-beta.0", "1.37.2", false, true, []string{"v1.38.0-beta.0", "1.37.2"}},
		{"", "1.37.2", "1.38.0-rc.0", true, true, []string{"1.37.2", "1.38.0-rc.0", "1.37.2", "1.38.0-rc.0"}},
		{"v1.37.2,v1.38.0-alpha.1,v1.38.0-beta.0", "v1.35.4", "v1.36.3", false, false, []string{"v1.37.2", "v1.38.0-alpha.1", "v1.38.0-beta.0"}},
	} {
		got, err := upgradePath(c.path, c.from, c.to, c.roundTrip, c.fromOrTo)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("upgradePath(%q, %s, %s, %v, %v) = %q, %v; want %q", c.path, c.from, c.to, c.roundTrip, c.fromOrTo, got, err, c.want)
		}
	}
}
