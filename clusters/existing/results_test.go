package existing

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultsThroughTheLog: what the pod packs into its log, certify unpacks, file for
// file, whatever else the log holds around it; a reader of the log sees every line but
// the block's.
func TestResultsThroughTheLog(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"conformance-report.json": `{"kind":"ConformanceReport"}`, "junit_01.xml": "<testsuites/>", "e2e.log": strings.Repeat("x", 10000)}
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(src, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	log.WriteString("the run's output\n")
	tarball, err := PackResults(src, &log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tarball); err != nil {
		t.Errorf("the tarball sonobuoy's done file names: %v", err)
	}
	log.WriteString("trailing line\n")
	dst := t.TempDir()
	names, err := UnpackResults(log.Bytes(), dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(files) {
		t.Errorf("unpacked %v, want %d files", names, len(files))
	}
	for n, c := range files {
		if b, _ := os.ReadFile(filepath.Join(dst, n)); string(b) != c {
			t.Errorf("%s: %d bytes, want %d", n, len(b), len(c))
		}
	}
	var shown []string
	var filter resultsFilter
	for _, l := range strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n") {
		if filter.shown(l) {
			shown = append(shown, l)
		}
	}
	if got := strings.Join(shown, "|"); got != "the run's output|trailing line" {
		t.Errorf("a reader of the log sees %q, want the run's lines and none of the results block", got)
	}
	if _, err := UnpackResults([]byte("a run killed before its results\n"), dst); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("a log without results: %v, want an error saying the run did not finish", err)
	}
}
