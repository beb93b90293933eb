//go:build !incluster

package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/existing"
)

// certify hands back the results of a run inside that failed or was incomplete, with its
// exit code; a log without results keeps that code too, and says where the log went.
func TestCertifyResultsWhateverTheCode(t *testing.T) {
	inside := t.TempDir()
	if err := os.WriteFile(filepath.Join(inside, "report.json"), []byte(`{"failed":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	log.WriteString("a run that failed\n")
	if _, err := existing.PackResults(inside, &log); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		log      []byte
		code     int
		want     string // a file written to the report directory
		wantCode int    // 0: no error
	}{
		{"passed", log.Bytes(), 0, "report.json", 0},
		{"failed", log.Bytes(), 1, "report.json", 1},
		{"incomplete", log.Bytes(), exitIncomplete, "report.json", exitIncomplete},
		{"cut short", []byte("a run that was killed\n"), exitIncomplete, "pod.log", exitIncomplete},
		{"no results after a pass", []byte("a run that lost its results\n"), 0, "pod.log", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			err := certifyResults(IOStreams{Out: &out, ErrOut: &out}, dir, tc.log, tc.code)
			code := 0
			var e exitError
			switch {
			case errors.As(err, &e):
				code = e.code
			case err != nil:
				code = 1
			}
			if code != tc.wantCode {
				t.Errorf("certifyResults: %v (exit %d), want exit %d", err, code, tc.wantCode)
			}
			if _, serr := os.Stat(filepath.Join(dir, tc.want)); serr != nil {
				t.Errorf("%s not written: %v", tc.want, serr)
			}
			if tc.want == "pod.log" && (err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "pod.log"))) {
				t.Errorf("certifyResults: %v, want it to say the log is in %s", err, filepath.Join(dir, "pod.log"))
			}
		})
	}
}

// TestConformanceFlagKeptWhole: a --conformance-flag value reaches the run inside whole,
// commas and all (it was split at them, so the second audit log was lost), and what the
// run inside parses of it has both logs.
func TestConformanceFlagKeptWhole(t *testing.T) {
	const logs = "--audit-logs=cp-1=/a.log,cp-2=/b.log"
	var out bytes.Buffer
	if code := Run([]string{"certify", "--sonobuoy-plugin", "--conformance-flag=" + logs, "--conformance-flag=--upstream"}, IOStreams{Out: &out, ErrOut: &out}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "value: "+logs+" --upstream\n") {
		t.Errorf("E2E_EXTRA_ARGS is not %q:\n%s", logs+" --upstream", out.String())
	}
	f := &conformanceFlags{}
	c := conformanceCommandWith(IOStreams{Out: &out, ErrOut: &out}, f)
	if err := c.ParseFlags(strings.Fields(logs + " --upstream")); err != nil || len(f.auditLogs) != 2 || !f.upstream {
		t.Errorf("the run inside parses %v (%v), want both logs and --upstream", f.auditLogs, err)
	}
}
