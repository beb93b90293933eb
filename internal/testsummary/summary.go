package main

import (
	"cmp"
	"fmt"
	"io"
	"sort"
	"time"
)

// summary is what a run of go test said, gathered for the closing report.
type summary struct {
	out         io.Writer
	tests       map[string]*test // by package and name
	order       []*test          // as they started
	pkgs        map[string]*pkg
	pkgOrder    []*pkg
	skips       []skip
	timed       []timing // top-level tests that passed or failed
	failedTests []*test
	buildFailed []string
	// counts of top-level tests by result, for the plain closing line any CI reads
	passed, failedN, skipped int
	// the times of the first and the last event
	first, last time.Time
}

type pkg struct {
	name    string
	output  []string // its own lines: ok, FAIL, what TestMain printed
	closing string   // its last line, as go test wrote it: ok, FAIL or ?
	result  string   // pass, fail, skip (no tests); "" while it runs
	took    time.Duration
}

type skip struct{ pkg, name, reason string }

type timing struct {
	name string
	took time.Duration
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, tests: map[string]*test{}, pkgs: map[string]*pkg{}}
}

func (s *summary) write(text string)   { io.WriteString(s.out, text) }
func (s *summary) println(line string) { fmt.Fprintln(s.out, line) }

// failed reports whether anything failed: a test, a package, a build.
func (s *summary) failed() bool {
	if len(s.failedTests) > 0 || len(s.buildFailed) > 0 {
		return true
	}
	for _, p := range s.pkgs {
		if p.result == "fail" || p.result == "" {
			return true // a package that did not finish: the run was cut short
		}
	}
	return false
}

// slowest is how many tests the report lists by time.
const slowest = 10

// print writes the closing report: every skip with its reason, the slowest tests, the time
// of each package (longest first), and last the verdict with what failed, so the final
// lines of a failed run still say FAIL.
func (s *summary) print() {
	s.println("")
	if len(s.skips) == 0 {
		s.println("== skipped tests: none")
	} else {
		s.println(fmt.Sprintf("== skipped tests: %d (they checked nothing; each says why)", len(s.skips)))
		for _, k := range s.skips {
			s.println(fmt.Sprintf("SKIP %s %s: %s", k.pkg, k.name, k.reason))
		}
	}

	timed := append([]timing(nil), s.timed...)
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].took > timed[j].took })
	if len(timed) > slowest {
		timed = timed[:slowest]
	}
	s.println(fmt.Sprintf("== slowest tests: %d of %d", len(timed), len(s.timed)))
	for _, t := range timed {
		s.println(fmt.Sprintf("%9s %s", round(t.took), t.name))
	}

	pkgs := append([]*pkg(nil), s.pkgOrder...)
	sort.SliceStable(pkgs, func(i, j int) bool { return pkgs[i].took > pkgs[j].took })
	var total time.Duration
	for _, p := range pkgs {
		total += p.took
	}
	// Packages run side by side (go test -p), so the run's wall time is less than their sum.
	wall := s.last.Sub(s.first)
	s.println(fmt.Sprintf("== time per package: %s in all, %s from the first test event to the last", round(total), round(wall)))
	for _, p := range pkgs {
		result := p.result
		switch result {
		case "":
			result = "did not finish"
		case "skip":
			result = "no tests"
		}
		share := ""
		if wall > 0 && p.took >= time.Second {
			share = fmt.Sprintf(", %.0f%% of the warm budget", 100*p.took.Seconds()/warmBudget.Seconds())
		}
		s.println(fmt.Sprintf("%9s %s (%s%s)", round(p.took), p.name, result, share))
	}
	s.println(budgetLine(wall))

	// The last line is the plain count of top-level tests, which CI systems read whatever
	// the test runner.
	defer func() {
		s.println(fmt.Sprintf("tests: %d passed, %d failed, %d skipped", s.passed, s.failedN, s.skipped))
	}()
	if !s.failed() {
		s.println(fmt.Sprintf("== ok: %d packages, %d skipped tests", len(s.pkgs), len(s.skips)))
		return
	}
	s.println("== FAIL")
	for _, t := range s.failedTests {
		s.println(fmt.Sprintf("--- FAIL: %s (%s)", t.name, t.pkg))
	}
	for _, p := range s.pkgOrder {
		switch p.result {
		case "fail":
			s.write(cmp.Or(p.closing, "FAIL\t"+p.name+"\n"))
		case "":
			s.println("FAIL\t" + p.name + "\t(did not finish: the run was cut short)")
		}
	}
}

// The budget of make test's wall time: warm (binaries, images and Go caches present) and
// cold (a new machine, which builds them inside the run). It is printed, never enforced by
// a timed test: the run that spends it shows it, with each package's share.
const (
	warmBudget = 12 * time.Minute
	coldBudget = 40 * time.Minute
)

// budgetLine sets the run's wall time against the budget.
func budgetLine(wall time.Duration) string {
	switch {
	case wall <= warmBudget:
		return fmt.Sprintf("== budget: %s of the %s warm budget (cold: %s)", round(wall), round(warmBudget), round(coldBudget))
	case wall <= coldBudget:
		return fmt.Sprintf("== budget: %s, OVER the %s warm budget by %s (within the %s cold budget only if this run built binaries or images)",
			round(wall), round(warmBudget), round(wall-warmBudget), round(coldBudget))
	}
	return fmt.Sprintf("== budget: %s, OVER the %s cold budget by %s (warm: %s)", round(wall), round(coldBudget), round(wall-coldBudget), round(warmBudget))
}

// round shows a duration to a tenth of a second (whole seconds past a minute).
func round(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
