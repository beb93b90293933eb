package integration

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	cases := []struct {
		name       string
		short      bool
		euid       int
		env        string
		skip, fail string // substrings; "" means none
	}{
		{"root runs", false, 0, "", "", ""},
		{"-short skips", true, 1000, "", "-short", ""},
		{"non-root fails, saying how to skip", false, 1000, "", "", "SKEWCHECK_SKIP_INTEGRATION=1"},
		{"non-root skips when asked", false, 1000, "1", "as asked", ""},
	}
	for _, c := range cases {
		skip, fail := decide(c.short, c.euid, c.env)
		if (c.skip == "") != (skip == "") || !strings.Contains(skip, c.skip) || (c.fail == "") != (fail == "") || !strings.Contains(fail, c.fail) {
			t.Errorf("%s: skip %q fail %q, want skip containing %q and fail containing %q", c.name, skip, fail, c.skip, c.fail)
		}
	}
}
