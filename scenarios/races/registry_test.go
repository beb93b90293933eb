package races

import (
	"slices"
	"strings"
	"testing"
)

// Every race is registered once, selectable by name; only dead-address acts on no
// server; an unknown name lists the races.
func TestRegistry(t *testing.T) {
	names := Names()
	if !slices.Equal(names, []string{"registering", "stale-lease", "same-identity", "lease-deleted", "dead-address"}) {
		t.Errorf("races %v", names)
	}
	for _, n := range names {
		r, err := ByName(n)
		if err != nil || r.Run == nil || r.AnyRoute != (n == "dead-address") {
			t.Errorf("%s: %+v, %v", n, r, err)
		}
	}
	if _, err := ByName("bogus"); err == nil || !strings.Contains(err.Error(), "the races are registering, stale-lease") {
		t.Errorf("bogus: %v", err)
	}
}
