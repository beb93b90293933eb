package soak

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// deletedExtensionReturns allows the deleted group-versions listed again once the grace is
// over: not sooner, not nothing.
func TestDeletedExtensionReturnsAllowsOnlyDeletedAfterTheGrace(t *testing.T) {
	obs := func(listed, first float64) framework.Observation {
		return framework.Observation{At: &framework.Endpoint{Name: "apiserver-2", Version: "v1.36.3"},
			Figures: map[string]float64{"listed": listed, "firstSeconds": first}}
	}
	cases := []struct {
		name string
		obs  framework.Observation
		want bool
	}{
		{"the aggregated API back at 300.2 s", obs(1, 300.2), true},
		{"both back after the grace", obs(2, 301), true},
		{"back before the grace", obs(1, 120), false},
		{"back half a second early", obs(1, 299.5), false},
		{"nothing listed", obs(0, 0), false},
		{"no figures", framework.Observation{}, false},
	}
	for _, tc := range cases {
		if got := deletedExtensionReturns.Allows(tc.obs); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.name, got, tc.want)
		}
	}
}
