package report

import (
	"strings"
	"testing"
	"time"
)

// Several runs in one file (a night's pairs): each run's suites, named by the run, and the
// totals of all.
func TestJUnitOfSeveralRuns(t *testing.T) {
	run := func(failed bool) *Conformance {
		r := Passed
		if failed {
			r = Failed
		}
		return &Conformance{ProfilesRequested: []string{"mvp"}, Tests: []Test{{ID: "MVP-001", Profile: "mvp", Result: r, Duration: time.Second}}}
	}
	b, err := JUnitOf([]NamedRun{{Name: "v1.35.4-v1.36.3", Run: run(false)}, {Name: "v1.36.3-v1.37.2", Run: run(true)}})
	if err != nil {
		t.Fatal(err)
	}
	x := string(b)
	for _, want := range []string{`<testsuites name="skewcheck" tests="2" failures="1"`, `<testsuite name="v1.35.4-v1.36.3 mvp" tests="1" failures="0"`, `<testsuite name="v1.36.3-v1.37.2 mvp" tests="1" failures="1"`} {
		if !strings.Contains(x, want) {
			t.Errorf("lacks %q:\n%s", want, x)
		}
	}
}
