package app

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/report"
)

// TestDefaultSkew: a cluster made for the suites, with no --server-flag, gets a GVR each
// server lacks and the other serves, and says so in one line; a user's own skew, or a
// single server, is left alone.
func TestDefaultSkew(t *testing.T) {
	two := []string{"v1.35.4", "v1.36.3"}
	f := serverFlags{versions: two}
	line := f.applyDefaultSkew()
	if line == "" || strings.Contains(line, "\n") || !strings.Contains(line, "batch/v1") || !strings.Contains(line, "autoscaling/v2") {
		t.Errorf("the default skew is not said in one line naming it: %q", line)
	}
	specs, err := f.specs()
	if err != nil {
		t.Fatal(err)
	}
	want := []clusters.ServerSpec{
		{Version: "v1.35.4", ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		{Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=autoscaling/v2=false"}},
	}
	if !reflect.DeepEqual(specs, want) {
		t.Errorf("specs = %+v, want %+v", specs, want)
	}

	own := serverFlags{versions: two, extra: []string{"2=--runtime-config=apps/v1=false"}}
	if line := own.applyDefaultSkew(); line != "" || len(own.extra) != 1 || len(own.implied) != 0 {
		t.Errorf("a user's --server-flag was overridden: %q %v %v", line, own.extra, own.implied)
	}
	// Emulating the older release is no skew of one's own: the pair gets the same skew as
	// the real older release would.
	emulated := serverFlags{versions: []string{"v1.36.3", "v1.36.3"}, extra: []string{"1=--emulated-version=1.35"}}
	if line := emulated.applyDefaultSkew(); !strings.HasPrefix(line, "no --server-flag but --emulated-version: batch/v1 is off") || len(emulated.extra) != 1 {
		t.Errorf("an --emulated-version alone should still get the default skew, the flag left as typed: %v %v", emulated.extra, emulated.implied)
	}
	specs, err = emulated.specs()
	if err != nil {
		t.Fatal(err)
	}
	want = []clusters.ServerSpec{
		{Version: "v1.36.3", EmulatedVersion: "1.35", ExtraFlags: []string{"--runtime-config=batch/v1=false"}},
		{Version: "v1.36.3", ExtraFlags: []string{"--runtime-config=autoscaling/v2=false"}},
	}
	if !reflect.DeepEqual(specs, want) {
		t.Errorf("emulated specs = %+v, want %+v", specs, want)
	}
	one := serverFlags{versions: two[1:]}
	if line := one.applyDefaultSkew(); line != "" || len(one.implied) != 0 {
		t.Errorf("a single server got a skew: %q %v", line, one.implied)
	}
	three := serverFlags{versions: []string{"v1.35.4", "v1.36.3", "v1.36.3"}}
	three.applyDefaultSkew()
	specs, _ = three.specs()
	if len(specs[2].ExtraFlags) != 0 {
		t.Errorf("the third server should serve everything: %+v", specs[2])
	}
}

// TestVerdictExitCodes: a failure exits 1, a run that could not check everything here
// exits 2, and a run whose only non-passes do not apply exits 0.
func TestVerdictExitCodes(t *testing.T) {
	mk := func(tests ...report.Test) *report.Conformance {
		c := &report.Conformance{ProfilesRequested: []string{"p"}, Tests: tests}
		report.Summarize(c)
		return c
	}
	passed := report.Test{ID: "a", Profile: "p", Result: report.Passed}
	notApplicable := report.Test{ID: "b", Profile: "p", Result: report.Skipped, SkipKind: report.NotApplicable, SkipReason: "not applicable: applies to Kubernetes 1.35+"}
	missing := report.Test{ID: "c", Profile: "p", Result: report.Skipped, SkipKind: report.Missing, SkipReason: "missing Dataplane: none"}
	failed := report.Test{ID: "d", Profile: "p", Result: report.Failed, Failure: "404"}
	cases := []struct {
		name string
		rep  *report.Conformance
		code int // 0: no error
		text string
	}{
		{"all passed", mk(passed), 0, ""},
		{"not applicable only", mk(passed, notApplicable), 0, ""},
		{"nothing applies", mk(notApplicable), 0, ""},
		{"missing", mk(passed, notApplicable, missing), 2, "incomplete: nothing failed, but 1 tests"},
		{"failed", mk(passed, missing, failed), 1, "not conformant: profile p is failure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := verdictError(io.Discard, tc.rep, "report.yaml")
			code := 0
			if err != nil {
				code = 1
				var e exitError
				if errors.As(err, &e) {
					code = e.code
				}
			}
			if code != tc.code || (err != nil && !strings.Contains(err.Error(), tc.text)) {
				t.Errorf("exit %d (%v), want %d with %q", code, err, tc.code, tc.text)
			}
		})
	}
}
