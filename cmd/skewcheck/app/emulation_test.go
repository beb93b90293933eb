//go:build !incluster

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
)

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
