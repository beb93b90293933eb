package existing

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeResults writes files (names relative to the directory, "/"-separated) into a new
// directory and returns it.
func writeResults(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// someResults are a run's results: reports, JUnit twice, a log that gzip cannot shrink
// into fewer than many lines, and a failed test's evidence.
var someResults = map[string]string{
	"conformance-report.json": `{"kind":"ConformanceReport"}`, "junit.xml": "<testsuites/>", "junit_01.xml": "<testsuites/>",
	"e2e.log": noisyLog(500), "exitcode": "2\n",
	"artifacts/MVP-001/responses.json": `{"responses":[]}`,
}

// noisyLog is n lines of hex digits no two alike.
func noisyLog(n int) string {
	var b strings.Builder
	sum := sha256.Sum256(nil)
	for range n {
		sum = sha256.Sum256(sum[:])
		fmt.Fprintf(&b, "%x\n", sum)
	}
	return b.String()
}

// packed is someResults' block as a pod's log holds it, between lines of the run's own.
func packed(t *testing.T) (string, []byte) {
	t.Helper()
	src := writeResults(t, someResults)
	var log bytes.Buffer
	log.WriteString("the run's output\n")
	tarball, err := PackResults(src, &log)
	if err != nil {
		t.Fatal(err)
	}
	log.WriteString("trailing line\n")
	return tarball, log.Bytes()
}

// requireUnpacked unpacks log and checks it gave back someResults, file for file.
func requireUnpacked(t *testing.T, log []byte) {
	t.Helper()
	dst := t.TempDir()
	names, err := UnpackResults(log, dst)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, "artifacts/") || !slices.Contains(names, "e2e.log") || len(names) != len(someResults) {
		t.Errorf("unpacked %v, want the %d files with the artifacts directory once", names, len(someResults))
	}
	for n, c := range someResults {
		if b, _ := os.ReadFile(filepath.Join(dst, filepath.FromSlash(n))); string(b) != c {
			t.Errorf("%s: %d bytes, want %d", n, len(b), len(c))
		}
	}
}

// TestResultsThroughTheLog: what the pod packs into its log, certify unpacks, file for
// file, the evidence under artifacts/ included, whatever else the log holds around it; a
// reader of the log sees every line but the block's.
func TestResultsThroughTheLog(t *testing.T) {
	tarball, log := packed(t)
	if _, err := os.Stat(tarball); err != nil {
		t.Errorf("the tarball sonobuoy's done file names: %v", err)
	}
	requireUnpacked(t, log)
	var shown []string
	var filter resultsFilter
	for _, l := range strings.Split(strings.TrimSuffix(string(log), "\n"), "\n") {
		if filter.shown(l) {
			shown = append(shown, l)
		}
	}
	if got := strings.Join(shown, "|"); got != "the run's output|trailing line" {
		t.Errorf("a reader of the log sees %q, want the run's lines and none of the results block", got)
	}
	if _, err := UnpackResults([]byte("a run killed before its results\n"), t.TempDir()); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("a log without results: %v, want an error saying the run did not finish", err)
	}
}

// interleaving stands in for the container runtime merging stderr into the log: after
// every Write to stdout, a line of stderr.
type interleaving struct {
	log    bytes.Buffer
	writes int
}

func (w *interleaving) Write(p []byte) (int, error) {
	w.writes++
	w.log.Write(p)
	w.log.WriteString("error: conformance exited 2 (the reports above say why)\n")
	return len(p), nil
}

// TestResultsInterleaved: lines of stderr between every two lines of the block (the run's
// closing error, which broke certify's unpacking when the run failed) leave it intact. A
// line cannot be cut in two by one either: each is one Write, which the runtime reads whole.
func TestResultsInterleaved(t *testing.T) {
	var w interleaving
	if _, err := PackResults(writeResults(t, someResults), &w); err != nil {
		t.Fatal(err)
	}
	if w.writes < 3 {
		t.Fatalf("the block took %d writes: want one per line, and several lines", w.writes)
	}
	requireUnpacked(t, w.log.Bytes())
}

// blockLines are the indexes of log's framed lines.
func blockLines(log []byte) (lines []string, framed []int) {
	lines = strings.SplitAfter(string(log), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, resultsPrefix) {
			framed = append(framed, i)
		}
	}
	return lines, framed
}

// TestResultsRefused: a block cut short, missing a line, with a line twice or with a line
// altered is refused, saying which and what to do, never unpacked wrong.
func TestResultsRefused(t *testing.T) {
	_, log := packed(t)
	lines, framed := blockLines(log)
	if len(framed) < 4 {
		t.Fatalf("the block has %d lines: the cases need several", len(framed))
	}
	without := func(i int) []byte { return []byte(strings.Join(slices.Delete(slices.Clone(lines), i, i+1), "")) }
	altered := slices.Clone(lines)
	mid := altered[framed[1]]
	at := len(mid) / 2
	swap := byte('A')
	if mid[at] == 'A' {
		swap = 'B'
	}
	altered[framed[1]] = mid[:at] + string(swap) + mid[at+1:]
	twice := slices.Insert(slices.Clone(lines), framed[2], lines[framed[1]])
	for _, c := range []struct {
		name string
		log  []byte
		want string
	}{
		{"without its closing line", without(framed[len(framed)-1]), "cut short"},
		{"without its second line", without(framed[1]), "lacks 2 ("},
		{"without its first line (a rotated log)", without(framed[0]), "containerLogMaxSize"},
		{"with a line altered", []byte(strings.Join(altered, "")), "sha256"},
		{"with a line twice", []byte(strings.Join(twice, "")), "more than once"},
	} {
		if _, err := UnpackResults(c.log, t.TempDir()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("a block %s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestResultsLastBlock: of two blocks the last complete one counts, and a block cut short
// after it does not hide it.
func TestResultsLastBlock(t *testing.T) {
	var log bytes.Buffer
	if _, err := PackResults(writeResults(t, map[string]string{"e2e.log": "an earlier attempt"}), &log); err != nil {
		t.Fatal(err)
	}
	_, second := packed(t)
	log.Write(second)
	lines, framed := blockLines(second)
	log.WriteString(strings.Join(lines[framed[0]:framed[2]], "")) // a third block, cut short
	requireUnpacked(t, log.Bytes())
}

// TestResultsEvidenceBounded: evidence past artifactsBound stays out of the archive, and
// the archive says what was left out.
func TestResultsEvidenceBounded(t *testing.T) {
	big := strings.Repeat("x", artifactsBound/2+1)
	src := writeResults(t, map[string]string{"e2e.log": "log", "artifacts/A/served.json": big, "artifacts/B/served.json": big, "artifacts/C/log.txt": "tail"})
	var log bytes.Buffer
	if _, err := PackResults(src, &log); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if _, err := UnpackResults(log.Bytes(), dst); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{"A/served.json": true, "B/served.json": false, "C/log.txt": true} {
		if _, err := os.Stat(filepath.Join(dst, artifactsDir, n)); (err == nil) != want {
			t.Errorf("artifacts/%s carried: %v, want %v", n, err == nil, want)
		}
	}
	note, _ := os.ReadFile(filepath.Join(dst, artifactsDir, artifactsLeftOut))
	if !strings.Contains(string(note), "artifacts/B/served.json") || strings.Contains(string(note), "A/served.json") {
		t.Errorf("artifacts/%s says %q, want it to name B's file alone", artifactsLeftOut, note)
	}
}

// framedArchive is a pod's log holding, as its results block, a gzipped tar of entries
// (name, type and content each), made as the pod would not make it.
func framedArchive(t *testing.T, entries ...tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := bytes.Repeat([]byte("x"), int(h.Size))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := writeFramed(&log, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return log.Bytes()
}

// An archive's entries land inside the directory or not at all: a name that climbs out of
// it, or is absolute, is refused, and nothing is written outside.
func TestResultsStayInTheirDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "reports")
	for _, name := range []string{"../escaped", "artifacts/../../escaped", "/tmp/escaped-" + filepath.Base(parent)} {
		log := framedArchive(t, tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: 3})
		if _, err := UnpackResults(log, dir); err == nil || !strings.Contains(err.Error(), "outside its directory") {
			t.Errorf("entry %q: %v, want it refused", name, err)
		}
	}
	for _, p := range []string{filepath.Join(parent, "escaped"), "/tmp/escaped-" + filepath.Base(parent)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
			os.Remove(p)
		}
	}
}

// An entry past untarBound, or entries past untarTotalBound together, are refused with
// what to do, never written cut short as if whole.
func TestResultsUnpackBounded(t *testing.T) {
	was, wasTotal := untarBound, untarTotalBound
	untarBound, untarTotalBound = 100, 250
	t.Cleanup(func() { untarBound, untarTotalBound = was, wasTotal })
	big := framedArchive(t, tar.Header{Typeflag: tar.TypeReg, Name: "e2e.log", Mode: 0o644, Size: 101})
	if _, err := UnpackResults(big, t.TempDir()); err == nil || !strings.Contains(err.Error(), "e2e.log") || !strings.Contains(err.Error(), "101 bytes") {
		t.Errorf("an entry of 101 bytes, bound 100: %v, want it refused by name and size", err)
	}
	many := framedArchive(t, tar.Header{Typeflag: tar.TypeReg, Name: "a", Mode: 0o644, Size: 100},
		tar.Header{Typeflag: tar.TypeReg, Name: "b", Mode: 0o644, Size: 100}, tar.Header{Typeflag: tar.TypeReg, Name: "c", Mode: 0o644, Size: 100})
	if _, err := UnpackResults(many, t.TempDir()); err == nil || !strings.Contains(err.Error(), "250") {
		t.Errorf("three entries of 100 bytes, bound 250 in all: %v, want them refused", err)
	}
	fits := framedArchive(t, tar.Header{Typeflag: tar.TypeReg, Name: "a", Mode: 0o644, Size: 100}, tar.Header{Typeflag: tar.TypeReg, Name: "b", Mode: 0o644, Size: 100})
	if names, err := UnpackResults(fits, t.TempDir()); err != nil || len(names) != 2 {
		t.Errorf("two entries of 100 bytes: %v, %v", names, err)
	}
}
