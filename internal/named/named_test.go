package named

import (
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New("color", func(s string) string { return strings.ToLower(s) })
	r.Register("Red")
	r.Register("green")
	if got := r.Names(); !slices.Equal(got, []string{"red", "green"}) {
		t.Errorf("names %v, want the registration order", got)
	}
	if v, ok := r.Lookup("red"); !ok || v != "Red" {
		t.Errorf("lookup red: %q, %v", v, ok)
	}
	if _, ok := r.Lookup("blue"); ok {
		t.Error("blue found")
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `color "red" registered twice`) {
			t.Errorf("a second red: %v", p)
		}
	}()
	r.Register("RED")
}
