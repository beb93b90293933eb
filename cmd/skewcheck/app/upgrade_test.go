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
	} {
		got, err := upgradePath(c.path, c.from, c.to, c.roundTrip, c.fromOrTo)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("upgradePath(%q, %s, %s, %v, %v) = %q, %v; want %q", c.path, c.from, c.to, c.roundTrip, c.fromOrTo, got, err, c.want)
		}
	}
}
