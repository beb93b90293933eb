package mvp

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// upgradeIdentityLost allows the 401 of a peer that saw no user, and nothing else a
// proxied upgrade request could get instead of its answer.
func TestUpgradeIdentityLostAllowsOnly401(t *testing.T) {
	entry := &framework.Endpoint{Name: "apiserver-1", Version: "v1.36.3"}
	for status, want := range map[int]bool{401: true, 403: false, 404: false, 500: false, 502: false, 503: false, 0: false} {
		if got := upgradeIdentityLost.Allows(framework.Observation{At: entry, Status: status}); got != want {
			t.Errorf("status %d: allowed %v, want %v", status, got, want)
		}
	}
}
