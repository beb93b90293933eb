//go:build !incluster

package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

// The emulation command exits as conformance does: 1 when the pairs differ or a test
// failed, 2 when they agree and nothing failed but something could not run, 0 otherwise.
func TestEmulationVerdict(t *testing.T) {
	run := func(tests ...report.Test) *report.Conformance {
		return &report.Conformance{Endpoints: []report.Endpoint{{Name: "apiserver-1", Version: "v1.36.3"}}, Tests: tests}
	}
	passed := report.Test{ID: "MVP-010", Result: report.Passed}
	failed := report.Test{ID: "MVP-011", Profile: "mvp", Result: report.Failed, Failure: "got 404"}
	missing := report.Test{ID: "MVP-013", Result: report.Skipped, SkipKind: report.Missing, SkipReason: "missing SkewedStatus: ..."}
	for _, tc := range []struct {
		name           string
		real, emulated *report.Conformance
		code           int    // 0: nil error
		want           string // in the error
	}{
		{"agree and pass", run(passed), run(passed), 0, ""},
		{"differ", run(passed, failed), run(passed, passed), 1, "did not predict the real skew: 1 of 2 tests differ, MVP-011"},
		{"both fail the same test", run(passed, failed), run(passed, failed), 1, "a test failed on both"},
		{"both incomplete", run(passed, missing), run(passed, missing), exitIncomplete, "incomplete"},
	} {
		for _, r := range []*report.Conformance{tc.real, tc.emulated} {
			report.Summarize(r)
		}
		err := emulationVerdict(matrix.CompareEmulation(nil, tc.real, tc.emulated), tc.real, tc.emulated, 7)
		code := 0
		if err != nil {
			code = 1
			var e exitError
			if errors.As(err, &e) {
				code = e.code
			}
		}
		if code != tc.code || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: exit %d, %v; want exit %d and %q", tc.name, code, err, tc.code, tc.want)
		}
	}
}

func TestEmulationBadInput(t *testing.T) {
	out, code := runApp(t, t.TempDir(), "emulation", "--versions", "v1.36.3")
	if code != 1 || !strings.Contains(out, "want the real pair, older first") {
		t.Errorf("one version: exit %d:\n%s", code, out)
	}
}

// report emulation compares two runs already made, as the emulation command does after
// running them: the same table and files, the same exit code.
func TestReportEmulation(t *testing.T) {
	dir := t.TempDir()
	for name, ep := range map[string]report.Endpoint{
		"real":     {Name: "apiserver-1", Version: "v1.35.4", URL: "https://127.77.1.11:6443"},
		"emulated": {Name: "apiserver-1", Version: "v1.36.3", EmulationVersion: "1.35", URL: "https://127.77.1.11:6443"},
	} {
		test := report.Test{ID: "MVP-010", Profile: "mvp", Description: "proxied reads", Result: report.Passed}
		if name == "real" {
			test.Result, test.Failure = report.Failed, "got 404"
		}
		c := &report.Conformance{Target: "local", Endpoints: []report.Endpoint{ep}, ProfilesRequested: []string{"mvp"}, Tests: []report.Test{test}}
		report.Summarize(c)
		if _, err := report.Write(filepath.Join(dir, name), c); err != nil {
			t.Fatal(err)
		}
	}
	out, code := runApp(t, t.TempDir(), "report", "emulation", filepath.Join(dir, "real"), filepath.Join(dir, "emulated"), "--out", dir)
	if code != 1 || !strings.Contains(out, "| MVP-010 | failed | passed | **no** | real: failed: got 404; emulated: passed |") ||
		!strings.Contains(out, "emulated pair: v1.36.3 as 1.35") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, matrix.EmulationFile)); err != nil {
		t.Errorf("--out wrote no %s: %v", matrix.EmulationFile, err)
	}
}
