package campaign

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
)

// TestServerArgs: a shape becomes the conformance flags a child run is given, as the
// nightly's log shows them: the versions in order, then each server's flags by number.
func TestServerArgs(t *testing.T) {
	got := strings.Join(serverArgs(clusters.HighlyAvailable("v1.35.4", "v1.36.3")), " ")
	want := "--versions v1.35.4,v1.36.3,v1.36.3 --server-flag 1=--runtime-config=batch/v1=false" +
		" --server-flag 2=--runtime-config=autoscaling/v2=false --server-flag 3=--runtime-config=autoscaling/v2=false"
	if got != want {
		t.Errorf("serverArgs(HighlyAvailable) = %q, want %q", got, want)
	}
	if got := strings.Join(serverArgs([]clusters.ServerSpec{{Version: "v1.36.3"}}), " "); got != "--versions v1.36.3" {
		t.Errorf("a server without flags: %q", got)
	}
}
