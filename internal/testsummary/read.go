package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), plus the build events of Go 1.24+.
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string    // build-output and build-fail
	Time       time.Time // when it happened: the run's wall time is from the first to the last
}

// test is what is known of one test so far.
type test struct {
	pkg, name string
	output    []string // its lines, framing (=== RUN and the like) left out
	done      bool
}

// read takes in events until in ends, writing what plain `go test` would as it goes: the
// lines of a failed test when it fails, a package's closing lines when it ends, build
// errors as they come. A line that is not an event (the go command's own messages, when
// stderr is piped in too) is written as it is.
func (s *summary) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024) // a test may log long lines
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
			s.println(line)
			continue
		}
		s.take(e)
	}
	return sc.Err()
}

func (s *summary) take(e event) {
	if !e.Time.IsZero() {
		if s.first.IsZero() || e.Time.Before(s.first) {
			s.first = e.Time
		}
		if e.Time.After(s.last) {
			s.last = e.Time
		}
	}
	switch {
	case e.Action == "build-output":
		s.write(e.Output)
	case e.Action == "build-fail":
		s.buildFailed = append(s.buildFailed, e.ImportPath)
	case e.Test != "":
		s.takeTestEvent(e)
	default:
		s.takePackageEvent(e)
	}
}

func (s *summary) takeTestEvent(e event) {
	key := e.Package + "\x00" + e.Test
	t := s.tests[key]
	if t == nil {
		t = &test{pkg: e.Package, name: e.Test}
		s.tests[key] = t
		s.order = append(s.order, t)
	}
	switch e.Action {
	case "output":
		if !framing(e.Output) {
			t.output = append(t.output, e.Output)
		}
	case "pass":
		t.done = true
		s.ran(t, e.Elapsed)
		s.count(t, &s.passed)
	case "fail":
		t.done = true
		s.ran(t, e.Elapsed)
		s.count(t, &s.failedN)
		s.failedTests = append(s.failedTests, t)
		s.write(strings.Join(t.output, ""))
	case "skip":
		t.done = true
		s.count(t, &s.skipped)
		s.skips = append(s.skips, skip{pkg: t.pkg, name: t.name, reason: skipReason(t.output)})
	}
}

// count adds a finished top-level test to n: subtests are part of their parent's result.
func (s *summary) count(t *test, n *int) {
	if !strings.Contains(t.name, "/") {
		*n++
	}
}

// ran records a finished top-level test's time: a subtest's is already in its parent's.
func (s *summary) ran(t *test, elapsed float64) {
	if !strings.Contains(t.name, "/") {
		s.timed = append(s.timed, timing{name: t.pkg + " " + t.name, took: seconds(elapsed)})
	}
}

func (s *summary) takePackageEvent(e event) {
	p := s.pkgs[e.Package]
	if p == nil {
		p = &pkg{name: e.Package}
		s.pkgs[e.Package] = p
		s.pkgOrder = append(s.pkgOrder, p)
	}
	switch e.Action {
	case "output":
		if e.Output != "PASS\n" && !framing(e.Output) {
			p.output = append(p.output, e.Output)
		}
		if closing(e.Output) {
			p.closing = e.Output
		}
	case "pass", "skip":
		// Plain go test shows a package that passed (or has no tests) by its closing line
		// only: "ok  <pkg> <time>" or "?   <pkg> [no test files]".
		p.result, p.took = e.Action, seconds(e.Elapsed)
		s.write(p.closing)
	case "fail":
		// A package that failed shows all of it. Tests that never ended (a panic, the
		// -timeout) show their lines too: they say where it stopped.
		p.result, p.took = e.Action, seconds(e.Elapsed)
		for _, t := range s.order {
			if t.pkg == p.name && !t.done {
				t.done = true
				s.write(strings.Join(t.output, ""))
			}
		}
		s.write(strings.Join(p.output, ""))
	}
}

// closing reports whether line is one go test ends a package with.
func closing(line string) bool {
	return strings.HasPrefix(line, "ok  \t") || strings.HasPrefix(line, "?   \t") || strings.HasPrefix(line, "FAIL\t")
}

// framing tells the lines that only say a test started, paused or went on (what -json's
// implied -v adds) from what a test said.
func framing(line string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// skipReason is what a skipped test said last (t.Skip's message, with its file and line):
// the log entry that starts at the last line naming a file, up to the --- SKIP line.
func skipReason(output []string) string {
	var lines []string
	for _, l := range output {
		if strings.HasPrefix(strings.TrimSpace(l), "--- SKIP") {
			continue
		}
		if logEntryStart(l) {
			lines = lines[:0]
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return strings.Join(lines, " ")
}

// logEntryStart reports whether l opens a t.Log entry: "    file_test.go:12: ...".
func logEntryStart(l string) bool {
	f, _, ok := strings.Cut(strings.TrimSpace(l), ": ")
	if !ok {
		return false
	}
	file, line, ok := strings.Cut(f, ".go:")
	return ok && file != "" && line != "" && strings.Trim(line, "0123456789") == ""
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
