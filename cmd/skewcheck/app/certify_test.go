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
