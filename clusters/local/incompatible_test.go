package local

import (
	"strings"
	"testing"
)

func TestKnownIncompatibility(t *testing.T) {
	for _, c := range []struct {
		versions []string
		want     bool
	}{
		{[]string{"v1.34.4", "v1.35.4"}, true},
		{[]string{"v1.33.13", "v1.34.4"}, true},
		{[]string{"v1.34.4"}, false},
		{[]string{"v1.35.4", "v1.36.3"}, false},
		{[]string{"v1.36.3", "v1.37.2"}, false},
	} {
		got := knownIncompatibility(c.versions)
		if (got != "") != c.want || (c.want && !strings.Contains(got, "missing port in address")) {
			t.Errorf("%v: %q, want an explanation: %v", c.versions, got, c.want)
		}
	}
}
