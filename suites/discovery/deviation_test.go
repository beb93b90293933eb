package discovery

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// lastPeerStaysMerged allows a merged view left whole after the entry's last peer left,
// not one partly rebuilt, nor one of a server that still had peers.
func TestLastPeerStaysMergedAllowsOnlyAnUnrebuiltView(t *testing.T) {
	obs := func(still, only, peersLeft float64) framework.Observation {
		return framework.Observation{At: &framework.Endpoint{Name: "apiserver-1", Version: "v1.36.3"},
			Figures: map[string]float64{"stillListed": still, "leaverOnly": only, "peersLeft": peersLeft}}
	}
	cases := []struct {
		name string
		obs  framework.Observation
		want bool
	}{
		{"every GVR of the last peer still listed", obs(2, 2, 0), true},
		{"partly rebuilt", obs(1, 2, 0), false},
		{"another peer left", obs(2, 2, 1), false},
		{"nothing listed", obs(0, 2, 0), false},
		{"no figures", framework.Observation{}, false},
	}
	for _, tc := range cases {
		if got := lastPeerStaysMerged.Allows(tc.obs); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.name, got, tc.want)
		}
	}
}

// staleMergedCache allows only a merged view that lacks what the nopeer view lists.
func TestStaleMergedCacheAllowsOnlyAMergedViewBehindItsOwn(t *testing.T) {
	obs := func(merged, nopeer float64) framework.Observation {
		return framework.Observation{At: &framework.Endpoint{Name: "apiserver-3", Version: "v1.36.3"},
			Figures: map[string]float64{"merged": merged, "nopeer": nopeer}}
	}
	for _, tc := range []struct {
		name string
		obs  framework.Observation
		want bool
	}{
		{"merged behind nopeer", obs(0, 1), true},
		{"in neither view", obs(0, 0), false},
		{"in both, yet late", obs(1, 1), false},
		{"merged only: listed as a peer's", obs(1, 0), false},
		{"no figures", framework.Observation{}, false},
	} {
		if got := staleMergedCache.Allows(tc.obs); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.name, got, tc.want)
		}
	}
}
