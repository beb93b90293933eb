package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// TestWholeVersion: --until takes a release with or without its v and a distribution's
// suffix, never a minor version alone.
func TestWholeVersion(t *testing.T) {
	for in, want := range map[string]string{"1.36.3": "v1.36.3", "v1.30.2+k3s1": "v1.30.2+k3s1", "v1.30.2-eks-a1b2": "v1.30.2-eks-a1b2", "": "", "v1.36": "error", "banana": "error",
		"v1.38.0-beta.0": "v1.38.0-beta.0", "1.38.0-rc.0": "v1.38.0-rc.0", "1.38.0-alpha.1": "v1.38.0-alpha.1", "v1.38-beta.0": "error"} {
		got, err := wholeVersion("--until", in)
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("wholeVersion(%q) = %q (%v), want %q", in, got, err, want)
		}
	}
}

// TestObservedGapExitsIncomplete: a watch that saw only a readiness gap (a server unready
// twice, its identity lease's holder unchanged) saw no restart: exit 2, saying so, with the
// gap in the summary.
func TestObservedGapExitsIncomplete(t *testing.T) {
	why := "its version stayed v1.36.3, and its identity lease's holder stayed apiserver-x_1"
	r := &upgrade.Result{Path: []string{"v1.36.3"}, Servers: 1, Duration: 60,
		Gaps:       []upgrade.Gap{{Server: "a", Start: 10, End: 12, Why: why}},
		Unobserved: "no apiserver restarted in 60s of watching; not restarts but readiness gaps: a unready 10.0s to 12.0s (" + why + ")"}
	var out bytes.Buffer
	err := writeObserved(IOStreams{Out: &out}, r, t.TempDir())
	var exit exitError
	if !errors.As(err, &exit) || exit.code != exitIncomplete || !strings.Contains(err.Error(), r.Unobserved) {
		t.Fatalf("writeObserved: %v, want exit %d with the reason", err, exitIncomplete)
	}
	if !strings.Contains(out.String(), "readiness gap, not a restart: a unready 10.0s to 12.0s: "+why) {
		t.Errorf("the summary does not show the gap:\n%s", out.String())
	}
}
