// Package makecheck tests the Makefile's own logic: what make does with skewcheck's exit
// codes, with a stand-in for skewcheck, so no cluster starts.
package makecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeSkewcheck is a stand-in for bin/skewcheck: it appends its arguments to $LOG and exits
// with the code the run's report directory is given in $CODES ("dir-suffix=code ..."), 0
// for any other.
const fakeSkewcheck = `#!/bin/sh
echo "$*" >> "$LOG"
for pair in $CODES; do
	suffix=${pair%=*}; code=${pair#*=}
	case "$*" in *"--report-dir "*"$suffix"|*"--report-dir "*"$suffix "*) exit "$code" ;; esac
done
exit 0
`

// TestConformanceRunsEveryRunAndKeepsTheCode: make conformance runs every queued run even
// when one fails, then the comparisons, and ends with skewcheck's code: 1 when a run
// failed, else 2 when one could not check everything, else 0, written to
// $(REPORT_DIR)/exit-code and on its last line; make itself exits 0, or 2 for 1 and 2
// alike (docs/reading-a-report.md says how CI reads it).
func TestConformanceRunsEveryRunAndKeepsTheCode(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed: nothing to test the Makefile with")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "skewcheck")
	if err := os.WriteFile(fake, []byte(fakeSkewcheck), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, codes string
		want        string // skewcheck's code
		makeFails   bool
	}{
		{"all pass", "", "0", false},
		{"one fails, one incomplete", "/upstream=2 /three-servers/reference=1", "1", true},
		{"one incomplete", "/gateway=2", "2", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			reports, log := t.TempDir(), filepath.Join(t.TempDir(), "log")
			// -o deps -o binaries: the stand-in needs no Go modules or apiserver binaries
			cmd := exec.Command("make", "--no-print-directory", "-o", "deps", "-o", "binaries", "conformance",
				"SKEWCHECK="+fake, "REPORT_DIR="+reports)
			cmd.Dir = "../.."
			// The Makefile's own defaults, whatever make test was called with: a parent
			// make's MAKEFLAGS would pass its variables (DATAPLANES=...) down to this one.
			var env []string
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); !slices.Contains([]string{"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "DATAPLANES", "CONFORMANCE_JOBS", "CONFORMANCE_FLAGS", "VERSIONS"}, k) {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, "LOG="+log, "CODES="+c.codes)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.makeFails {
				t.Errorf("make conformance: %v, want it to fail: %v\n%s", err, c.makeFails, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			last := ""
			for _, l := range lines {
				if strings.HasPrefix(l, "make conformance: exit code") {
					last = l
				}
			}
			if !strings.HasPrefix(last, "make conformance: exit code "+c.want+" (") {
				t.Errorf("its line: %q, want exit code %s\n%s", last, c.want, out)
			}
			if b, _ := os.ReadFile(filepath.Join(reports, "exit-code")); strings.TrimSpace(string(b)) != c.want {
				t.Errorf("exit-code holds %q, want %s", b, c.want)
			}
			calls, _ := os.ReadFile(log)
			runs := strings.Count(string(calls), "conformance ")
			compares := strings.Count(string(calls), "report compare")
			if runs != 8 || compares != 2 {
				t.Errorf("%d conformance runs and %d comparisons ran, want all 8 queued runs and both comparisons:\n%s", runs, compares, calls)
			}
		})
	}
}
