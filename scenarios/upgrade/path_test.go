package upgrade_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

func TestParsePath(t *testing.T) {
	for in, want := range map[string][]string{
		"v1.35.4,v1.36.3":                 {"v1.35.4", "v1.36.3"},
		" v1.35.4, v1.36.3 ,v1.35.4,":     {"v1.35.4", "v1.36.3", "v1.35.4"},
		"1.35,1.36,1.35,1.36":             {"1.35", "1.36", "1.35", "1.36"},
		"v1.36.3,v1.35.4":                 {"v1.36.3", "v1.35.4"},
		"v1.35.4,v1.36.3,v1.35.4,v1.36.3": upgrade.RoundTrip("v1.35.4", "v1.36.3"),
	} {
		got, err := upgrade.ParsePath(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParsePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"":                        "at least two versions",
		"v1.35.4":                 "at least two versions",
		"v1.35.4,,":               "at least two versions",
		"v1.35.4,v1.36.3,v1.36.3": "hop 2 goes from v1.36.3 to v1.36.3",
		"1.36.3,v1.36.3":          "the same version",
	} {
		if _, err := upgrade.ParsePath(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParsePath(%q) = %v; want an error saying %q", in, err, why)
		}
	}
}

func TestDirection(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"v1.35.4", "v1.36.3", upgrade.Upgrade},
		{"v1.36.3", "v1.35.4", upgrade.Downgrade},
		{"v1.36.3", "v1.36.10", upgrade.Upgrade},
		{"1.36", "v1.35.9", upgrade.Downgrade},
	} {
		if got := upgrade.Direction(c.from, c.to); got != c.want {
			t.Errorf("Direction(%s, %s) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
}
