//go:build !incluster

package app

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/report"
)

// A campaign's Incomplete exits 2, as an incomplete conformance run does: report emulation
// of two runs that agree, with a test neither could run, says so and exits 2.
func TestIncompleteCampaignExits2(t *testing.T) {
	dir := t.TempDir()
	for name, version := range map[string]string{"real": "v1.35.4", "emulated": "v1.36.3"} {
		c := &report.Conformance{Target: "local", Endpoints: []report.Endpoint{{Name: "apiserver-1", Version: version}}, ProfilesRequested: []string{"mvp"},
			Tests: []report.Test{{ID: "MVP-010", Profile: "mvp", Result: report.Passed},
				{ID: "MVP-013", Profile: "mvp", Result: report.Skipped, SkipKind: report.Missing, SkipReason: "missing SkewedStatus"}}}
		report.Summarize(c)
		if _, err := report.Write(filepath.Join(dir, name), c); err != nil {
			t.Fatal(err)
		}
	}
	out, code := runApp(t, t.TempDir(), "report", "emulation", filepath.Join(dir, "real"), filepath.Join(dir, "emulated"))
	if code != exitIncomplete || !strings.Contains(out, "error: incomplete: the pairs agree and nothing failed") {
		t.Errorf("exit %d, want %d and the incomplete verdict:\n%s", code, exitIncomplete, out)
	}
}
