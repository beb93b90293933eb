package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the summary writes now")

// testdata/run.json is `go test -json -count=1 -p 1 ./...` of a sample module: a package
// that passes with a skip, a table with a skipped case and a log line; one with a failed
// test, a failed subtest and a test that prints; one that does not build; one with no
// tests. What the summary writes of it is in testdata/run.golden.
func recorded(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func summarize(t *testing.T, in []byte) (string, *summary) {
	t.Helper()
	var out bytes.Buffer
	s := newSummary(&out)
	if err := s.read(bytes.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	s.print()
	return out.String(), s
}

func TestRecordedRun(t *testing.T) {
	out, s := summarize(t, recorded(t))
	golden := filepath.Join("testdata", "run.golden")
	if *update {
		os.WriteFile(golden, []byte(out), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("the summary of testdata/run.json differs from testdata/run.golden (go test -update rewrites it):\n%s", out)
	}
	if !s.failed() {
		t.Error("a run with failed tests and a broken build is not a failure")
	}

	// What plain go test prints is still there, in its order: CI parsers find their lines.
	for _, lines := range [][]string{
		{"--- FAIL: TestFails (0.00s)", "FAIL\texample.com/sample/bad\t0.053s", "FAIL\texample.com/sample/broken [build failed]",
			"?   \texample.com/sample/none\t[no test files]", "ok  \texample.com/sample/ok\t0.416s"},
		{"    bad_test.go:18: the peer answered 404", "--- FAIL: TestSubFails/broken (0.00s)", "--- FAIL: TestSubFails (0.00s)"},
		{"# example.com/sample/broken [example.com/sample/broken.test]", "broken/broken_test.go:5:28: undefined: undefined"},
	} {
		inOrder(t, out, lines...)
	}
	// -json's implied -v is not: passing tests stay quiet, as in plain go test.
	for _, quiet := range []string{"=== RUN", "--- PASS", "a log line of a passing test"} {
		if strings.Contains(out, quiet) {
			t.Errorf("the output has %q, which plain go test does not print", quiet)
		}
	}
	// Every skip, with its reason whole (a multi-line one on one line), after the test output.
	inOrder(t, out, "ok  \texample.com/sample/ok",
		"SKIP example.com/sample/ok TestNeedsDocker: ok_test.go:14: needs a Docker engine: skipped as asked by SKEWCHECK_SKIP_DOCKER=1\n",
		"SKIP example.com/sample/ok TestTable/two: ok_test.go:21: case two: needs nft, which this machine lacks\n",
		"== slowest tests: 7 of 7\n     0.3s example.com/sample/ok TestSlow\n",
		"== time per package: 0.5s in all, 1.1s from the first test event to the last\n     0.4s example.com/sample/ok (pass)\n")
	// The last lines say FAIL, with the failed tests and packages.
	if !strings.HasSuffix(out, "== FAIL\n--- FAIL: TestFails (example.com/sample/bad)\n--- FAIL: TestSubFails/broken (example.com/sample/bad)\n"+
		"--- FAIL: TestSubFails (example.com/sample/bad)\nFAIL\texample.com/sample/bad\t0.053s\nFAIL\texample.com/sample/broken [build failed]\n"+
		"tests: 5 passed, 2 failed, 1 skipped\n") {
		t.Errorf("the summary does not end with the failures and the plain count of top-level tests:\n%s", out)
	}
}

// The packages of the recorded run that passed, alone, are a run that passed.
func TestRecordedRunThatPassed(t *testing.T) {
	var in []byte
	for _, l := range bytes.SplitAfter(recorded(t), []byte("\n")) {
		if bytes.Contains(l, []byte(`"example.com/sample/ok"`)) || bytes.Contains(l, []byte(`"example.com/sample/none"`)) {
			in = append(in, l...)
		}
	}
	out, s := summarize(t, in)
	if s.failed() {
		t.Errorf("a run that passed counts as failed:\n%s", out)
	}
	if !strings.HasSuffix(out, "== ok: 2 packages, 2 skipped tests\ntests: 3 passed, 0 failed, 1 skipped\n") {
		t.Errorf("the summary of a run that passed does not end with ok and the plain count of top-level tests:\n%s", out)
	}
}

// A test that never ends (a panic, go test's -timeout) shows its lines when its package
// fails, and the package shows as failed; a package that never ends says so.
func TestUnfinishedTests(t *testing.T) {
	in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestHangs"}
{"Action":"output","Package":"p","Test":"TestHangs","Output":"=== RUN   TestHangs\n"}
{"Action":"output","Package":"p","Test":"TestHangs","Output":"    hang_test.go:9: waiting for the peer\n"}
{"Action":"output","Package":"p","Test":"TestHangs","Output":"panic: test timed out after 40m0s\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t2400.012s\n"}
{"Action":"fail","Package":"p","Elapsed":2400.012}
go: downloading example.com/m v1.0.0
{"Action":"start","Package":"q"}
{"Action":"run","Package":"q","Test":"TestInterrupted"}
`
	out, s := summarize(t, []byte(in))
	inOrder(t, out, "    hang_test.go:9: waiting for the peer\npanic: test timed out after 40m0s\nFAIL\tp\t2400.012s\n",
		"go: downloading example.com/m v1.0.0\n", "    40m0s p (fail)\n", "     0.0s q (did not finish)\n",
		"== FAIL\nFAIL\tp\t2400.012s\nFAIL\tq\t(did not finish: the run was cut short)\n")
	if !s.failed() {
		t.Error("a package that timed out is not a failure")
	}
}

func TestSkipReason(t *testing.T) {
	for _, c := range []struct {
		output []string
		want   string
	}{
		{[]string{"    a_test.go:3: looking\n", "    a_test.go:4: needs nft\n", "--- SKIP: TestA (0.00s)\n"}, "a_test.go:4: needs nft"},
		{[]string{"    a_test.go:4: needs nft,\n", "        which is missing\n", "--- SKIP: TestA (0.00s)\n"}, "a_test.go:4: needs nft, which is missing"},
		{[]string{"    --- SKIP: TestA/b (0.00s)\n"}, "(no reason given)"},
	} {
		if got := skipReason(c.output); got != c.want {
			t.Errorf("skipReason(%q) = %q, want %q", c.output, got, c.want)
		}
	}
}

// inOrder checks that out holds each of parts, one after another.
func inOrder(t *testing.T, out string, parts ...string) {
	t.Helper()
	rest := out
	for _, p := range parts {
		i := strings.Index(rest, p)
		if i < 0 {
			t.Errorf("the output lacks %q after what came before it, or at all:\n%s", p, out)
			return
		}
		rest = rest[i+len(p):]
	}
}

// The budget line sets the wall time against the warm and the cold budget.
func TestBudgetLine(t *testing.T) {
	for _, tc := range []struct {
		wall time.Duration
		want string
	}{
		{11 * time.Minute, "== budget: 11m0s of the 12m0s warm budget"},
		{16*time.Minute + 14*time.Second, "== budget: 16m14s, OVER the 12m0s warm budget by 4m14s"},
		{42 * time.Minute, "== budget: 42m0s, OVER the 40m0s cold budget by 2m0s"},
	} {
		if got := budgetLine(tc.wall); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%v: %q, want it to start %q", tc.wall, got, tc.want)
		}
	}
}
