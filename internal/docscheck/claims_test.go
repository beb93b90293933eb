package docscheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The claims the pages make about what the Makefile and the workflow do, each held to the
// code that does it: how many runs make conformance has and how many go at a time
// (CONFORMANCE_RUNS, CONFORMANCE_JOBS), how many packages make test runs side by side
// (TEST_P), how many of cmd/skewcheck's cluster tests run at a time (its TestMain's
// -parallel), which make target the workflow runs on pull requests and on a schedule and
// in how many shards; and every duration given for a make target comes from a dated
// entry of docs/measurements.md. They were found wrong before (the workflow said to run
// make ranges, which it did not; README said two cluster tests at a time, cli_test.go set
// three), and prose does not change when the code does.

// unit is a paragraph, a list item, a table row or a line of a fenced block: what a claim
// and its date are read together from.
type unit struct {
	page string
	line int // of the unit's first line
	text string
}

// itemStart begins a unit of its own: a list item or a table row.
var itemStart = regexp.MustCompile(`^([-*|]|\d+\.)\s`)

// lineOf is the page's line of the unit's byte i.
func (u unit) lineOf(i int) int { return u.line + strings.Count(u.text[:i], "\n") }

// units are a page's units. The workflow is read as the page of its comments: what a user
// copying it reads about it.
func units(t *testing.T, page string) []unit {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []unit
	var cur *unit
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	fenced := false
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(page, ".yml") {
			if !strings.HasPrefix(l, "#") {
				flush()
				continue
			}
			l = strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ")
		}
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			flush()
			fenced = !fenced
			continue
		}
		starts := fenced || trimmed == "" || itemStart.MatchString(trimmed+" ")
		if starts {
			flush()
		}
		if trimmed == "" {
			continue
		}
		if cur == nil {
			cur = &unit{page: page, line: i + 1, text: l}
		} else {
			cur.text += "\n" + l
		}
		if fenced {
			flush()
		}
	}
	flush()
	return out
}

// claimPages are the pages whose claims are held to the code: README.md, docs/ but the
// dated log itself and the generated catalogue, and the workflow's comments.
func claimPages(t *testing.T) []string {
	var out []string
	for _, p := range pages(t) {
		if b := filepath.Base(p); b != "measurements.md" && b != "tests.md" {
			out = append(out, p)
		}
	}
	return append(out, filepath.Join(root, ".ci", "github-workflow.yml"))
}

var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

var number = `(` + strings.Join(numberWords, "|") + `|\d+)`

// count is a number written as a word or in digits; -1 for neither.
func count(s string) int {
	if i := slices.Index(numberWords, strings.ToLower(s)); i >= 0 {
		return i
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return -1
}

// theCode is what the claims are held to, read from the files that do it.
type theCode struct {
	conformanceRuns, conformanceJobs, testP int
	cliParallel                             int
	shards                                  int
	// onPullRequests and onSchedule: the make targets the workflow's jobs run for a pull
	// request and for a scheduled run.
	onPullRequests, onSchedule []string
	// measured: docs/measurements.md's text under each dated heading.
	measured map[string]string
}

// makeValues are what make itself makes of the Makefile's variables (CONFORMANCE_RUNS is
// built from DATAPLANES), with its own defaults: the environment's make variables are
// left out, as make test may have been called with some.
func makeValues(t *testing.T, exprs ...string) []int {
	t.Helper()
	if _, err := exec.Command("make", "--version").Output(); err != nil {
		t.Skipf("make is not installed (%v): the Makefile's values cannot be read; install make", err)
	}
	cmd := exec.Command("make", "--no-print-directory", "-s", "-f", "Makefile", "-f", "-", "docscheck-values")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader("docscheck-values:\n\t@echo " + strings.Join(exprs, " ") + "\n")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains([]string{"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "DATAPLANES", "CONFORMANCE_JOBS", "TEST_P"}, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	fields := strings.Fields(string(out))
	if err != nil || len(fields) != len(exprs) {
		t.Fatalf("make -f Makefile docscheck-values printing %q: %q, %v", exprs, out, err)
	}
	var vals []int
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("the Makefile's %s is %q, not a number", exprs[i], f)
		}
		vals = append(vals, n)
	}
	return vals
}

func readCode(t *testing.T) theCode {
	t.Helper()
	var c theCode
	v := makeValues(t, "$(words $(CONFORMANCE_RUNS))", "$(CONFORMANCE_JOBS)", "$(TEST_P)")
	c.conformanceRuns, c.conformanceJobs, c.testP = v[0], v[1], v[2]

	cli, err := os.ReadFile(filepath.Join(root, "cmd", "skewcheck", "cli_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`flag\.Set\("test\.parallel", "(\d+)"\)`).FindSubmatch(cli)
	if m == nil {
		t.Fatal(`cmd/skewcheck/cli_test.go sets no flag.Set("test.parallel", "N"): how many cluster tests run at a time is no longer read where this test looks; update it`)
	}
	c.cliParallel, _ = strconv.Atoi(string(m[1]))

	b, err := os.ReadFile(filepath.Join(root, ".ci", "github-workflow.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Jobs map[string]struct {
			If    string            `json:"if"`
			Needs any               `json:"needs"`
			Env   map[string]string `json:"env"`
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf(".ci/github-workflow.yml: %v", err)
	}
	// A job runs on the events its if names, or those of the jobs it needs: the shard jobs
	// have no if of their own, and run only after the scheduled plan job.
	var on func(job string) (pullRequest, schedule bool)
	on = func(job string) (bool, bool) {
		j := w.Jobs[job]
		switch {
		case strings.Contains(j.If, "== 'pull_request'"):
			return true, false
		case strings.Contains(j.If, "!= 'pull_request'"):
			return false, true
		}
		needs, _ := j.Needs.([]any)
		if one, ok := j.Needs.(string); ok {
			needs = []any{one}
		}
		pr, sched := len(needs) == 0, len(needs) == 0
		for _, n := range needs {
			p, s := on(n.(string))
			pr, sched = pr || p, sched || s
		}
		return pr, sched
	}
	target := regexp.MustCompile(`\bmake ([a-z][a-z-]*)`)
	for name, job := range w.Jobs {
		if s := job.Env["NIGHTLY_SHARDS"]; s != "" {
			c.shards, _ = strconv.Atoi(s)
		}
		pr, sched := on(name)
		for _, s := range job.Steps {
			for _, m := range target.FindAllStringSubmatch(s.Run, -1) {
				if pr && !slices.Contains(c.onPullRequests, m[1]) {
					c.onPullRequests = append(c.onPullRequests, m[1])
				}
				if sched && !slices.Contains(c.onSchedule, m[1]) {
					c.onSchedule = append(c.onSchedule, m[1])
				}
			}
		}
	}

	c.measured = map[string]string{}
	mb, err := os.ReadFile(filepath.Join(root, "docs", "measurements.md"))
	if err != nil {
		t.Fatal(err)
	}
	dated := regexp.MustCompile(`^## (\d{4}-\d{2})-(\d{2})(?:/(\d{2}))?`)
	var dates []string
	for _, l := range strings.Split(string(mb), "\n") {
		if m := dated.FindStringSubmatch(l); m != nil {
			dates = []string{m[1] + "-" + m[2]}
			if m[3] != "" {
				dates = append(dates, m[1]+"-"+m[3])
			}
		}
		for _, d := range dates {
			c.measured[d] += l + "\n"
		}
	}
	if len(c.measured) == 0 {
		t.Fatal("docs/measurements.md has no dated heading (## YYYY-MM-DD): its entries cannot be found")
	}
	return c
}

var (
	atATime     = regexp.MustCompile(`\b` + number + `\s+at\s+a\s+time\b`)
	subject     = regexp.MustCompile(`cluster\s+tests|[Pp]ackages|\bruns\b`)
	sideBySide  = regexp.MustCompile(`\b` + number + `\s+packages\s+run\s+side\s+by\s+side`)
	runCount    = regexp.MustCompile(`\b` + number + `\s+(?:conformance\s+)?runs\b`)
	variable    = regexp.MustCompile("`(TEST_P|CONFORMANCE_JOBS)=(\\d+)`(\\s+for\\b)?")
	onTrigger   = regexp.MustCompile("`make ([a-z][a-z-]*)`\\s+on\\s+(pull\\s+requests|a\\s+schedule)")
	shardJobs   = regexp.MustCompile(`\b` + number + `\s+shard\s+jobs\b`)
	makeTarget  = regexp.MustCompile("`make [a-z][a-z-]*|\\bmake (?:test|conformance|mutation|nightly|ranges|soak|chaos)\\b")
	duration    = regexp.MustCompile(`\b(\d+) min \d+ s\b|\babout (\d+(?:\.\d+)?) (?:minutes|min|hours)\b`)
	date        = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
	conformance = regexp.MustCompile(`make conformance|CONFORMANCE_JOBS`)
)

// TestClaimsAreTheCode: what the pages say the Makefile, the workflow and the cluster
// tests do is what they do, and a duration of a make target is one docs/measurements.md
// records under the date the claim gives.
func TestClaimsAreTheCode(t *testing.T) {
	c := readCode(t)
	checked := 0
	for _, page := range claimPages(t) {
		for _, u := range units(t, page) {
			where := func(i int) string { return rel(u.page) + ":" + strconv.Itoa(u.lineOf(i)) }
			said := func(m []int) string { return strings.Join(strings.Fields(u.text[m[0]:m[1]]), " ") }

			for _, m := range atATime.FindAllStringSubmatchIndex(u.text, -1) {
				before := u.text[max(0, m[0]-80):m[0]]
				if strings.HasSuffix(before, " for ") { // "`TEST_P=1` for one at a time": an option, not the default
					continue
				}
				subjects := subject.FindAllString(before, -1)
				if len(subjects) == 0 {
					continue
				}
				n := count(u.text[m[2]:m[3]])
				var want int
				var what string
				switch s := subjects[len(subjects)-1]; {
				case strings.HasPrefix(s, "cluster"):
					want, what = c.cliParallel, `cmd/skewcheck/cli_test.go's TestMain sets -parallel`
				case strings.EqualFold(s, "packages"):
					want, what = c.testP, "the Makefile's TEST_P is"
				case conformance.MatchString(u.text) && !strings.Contains(u.text, "mutation"):
					want, what = c.conformanceJobs, "the Makefile's CONFORMANCE_JOBS is"
				default:
					continue
				}
				checked++
				if n != want {
					t.Errorf("%s says %q: %s %d", where(m[0]), said(m), what, want)
				}
			}
			for _, m := range sideBySide.FindAllStringSubmatchIndex(u.text, -1) {
				checked++
				if n := count(u.text[m[2]:m[3]]); n != c.testP {
					t.Errorf("%s says %q: the Makefile's TEST_P is %d", where(m[0]), said(m), c.testP)
				}
			}
			for _, m := range variable.FindAllStringSubmatchIndex(u.text, -1) {
				if m[6] >= 0 { // "`CONFORMANCE_JOBS=1` for one after another": an option
					continue
				}
				checked++
				name := u.text[m[2]:m[3]]
				n, _ := strconv.Atoi(u.text[m[4]:m[5]])
				if want := map[string]int{"TEST_P": c.testP, "CONFORMANCE_JOBS": c.conformanceJobs}[name]; n != want {
					t.Errorf("%s says %q: the Makefile's %s is %d", where(m[0]), said(m), name, want)
				}
			}
			if conformance.MatchString(u.text) && !strings.Contains(u.text, "mutation") {
				for _, m := range runCount.FindAllStringSubmatchIndex(u.text, -1) {
					checked++
					if n := count(u.text[m[2]:m[3]]); n != c.conformanceRuns {
						t.Errorf("%s says %q of make conformance: the Makefile's CONFORMANCE_RUNS lists %d", where(m[0]), said(m), c.conformanceRuns)
					}
				}
			}
			for _, m := range onTrigger.FindAllStringSubmatchIndex(u.text, -1) {
				checked++
				target, when := u.text[m[2]:m[3]], strings.Join(strings.Fields(u.text[m[4]:m[5]]), " ")
				runs := map[string][]string{"pull requests": c.onPullRequests, "a schedule": c.onSchedule}[when]
				if !slices.Contains(runs, target) {
					t.Errorf("%s says %q: the workflow's jobs on %s run make %q", where(m[0]), said(m), when, runs)
				}
			}
			for _, m := range shardJobs.FindAllStringSubmatchIndex(u.text, -1) {
				checked++
				if n := count(u.text[m[2]:m[3]]); n != c.shards {
					t.Errorf("%s says %q: the workflow's NIGHTLY_SHARDS is %d", where(m[0]), said(m), c.shards)
				}
			}
			if m := makeTarget.FindStringIndex(u.text); m != nil {
				checked += checkDurations(t, u, m[1], c.measured, where)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d claims found in the pages: the patterns no longer match how they are written", checked)
	}
}

// checkDurations: every duration a unit gives after naming a make target (at from), as
// "12 min 14 s" or "about 21 minutes", is recorded in docs/measurements.md under a date
// the unit gives. A duration before the name is of something else (a family of runs
// "with a make test beside it"). It returns how many it checked.
func checkDurations(t *testing.T, u unit, from int, measured map[string]string, where func(int) string) int {
	t.Helper()
	var dates []string
	for _, d := range date.FindAllString(u.text, -1) {
		if !slices.Contains(dates, d) {
			dates = append(dates, d)
		}
	}
	n := 0
	for _, m := range duration.FindAllStringSubmatchIndex(u.text, -1) {
		if m[0] < from {
			continue
		}
		n++
		figure := strings.Join(strings.Fields(u.text[m[0]:m[1]]), " ")
		// "about 21 minutes" is any figure of 21 minutes and some seconds, or said so
		want := regexp.QuoteMeta(figure)
		if m[4] >= 0 {
			want = `\b` + regexp.QuoteMeta(u.text[m[4]:m[5]]) + `(?: min\b| minutes\b| hours\b|-minute\b)`
		}
		found := false
		for _, d := range dates {
			found = found || regexp.MustCompile(want).MatchString(strings.Join(strings.Fields(measured[d]), " "))
		}
		if !found {
			if len(dates) == 0 {
				t.Errorf("%s says %q with no date: give the date of the docs/measurements.md entry that records it", where(m[0]), figure)
			} else {
				t.Errorf("%s says %q: no entry of docs/measurements.md dated %s records it; record the measurement there, or give the figure and date of one that does", where(m[0]), figure, strings.Join(dates, ", "))
			}
		}
	}
	return n
}
