package framework

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/report"
)

// Deviation is a way upstream Kubernetes is known to get a behaviour wrong, in a range of
// versions. It allows exactly one observation: when the target is upstream, the endpoint
// that showed the behaviour is in the range, and Allows accepts what was seen, a failure of
// the assertions the test wraps in Env.Deviation is reported as this deviation instead of
// failing the run. Any other failure there fails the test, and a reference implementation
// gets no allowance at all.
//
// Until is left open while the newest release still shows the deviation: it is the
// version upstream fixed it in, minus one, once a fix is seen, not a guess at when the
// last run happened to stop.
type Deviation struct {
	Since, Until string // minor versions, inclusive: "1.28", "1.36"; "" is open
	Summary      string
	// Allowed says in words what Allows accepts, for failure messages and the report.
	Allowed string
	// Allows reports whether an observation is this deviation and nothing else: the
	// status, figures or answers upstream's defect produces.
	Allows func(Observation) bool
}

// VersionRange is the deviation's range as the reports print it.
func (d Deviation) VersionRange() string { return versionRange(d.Since, d.Until) }

// Observation is what a test saw where a known deviation may show, for its Allows.
type Observation struct {
	// At is the endpoint whose code shows the deviation (the entry that proxies, not the
	// peer behind it). Only its version decides whether the allowance applies.
	At *Endpoint
	// Status is the HTTP status of the one answer observed, 0 when the observation is a
	// series of answers.
	Status int
	// Statuses counts a series of answers by HTTP status (0: no answer at all).
	Statuses map[int]int
	// Figures are what the test measured, by name (spurious404, stillListed, ...).
	Figures map[string]float64
}

func (o Observation) String() string {
	var parts []string
	if o.At != nil {
		parts = append(parts, fmt.Sprintf("at %s (%s)", o.At.Name, o.At.Version))
	}
	if o.Status != 0 {
		parts = append(parts, fmt.Sprintf("HTTP %d", o.Status))
	}
	if len(o.Statuses) > 0 {
		parts = append(parts, fmt.Sprintf("answers by status %v", o.Statuses))
	}
	for _, k := range slices.Sorted(maps.Keys(o.Figures)) {
		parts = append(parts, fmt.Sprintf("%s=%g", k, o.Figures[k]))
	}
	return strings.Join(parts, ", ")
}

// OnlyStatuses reports whether every answer of a series has one of the statuses given.
func (o Observation) OnlyStatuses(statuses ...int) bool {
	for s, n := range o.Statuses {
		if n > 0 && !slices.Contains(statuses, s) {
			return false
		}
	}
	return true
}

// allowance says whether a failure seen as obs on target is the test's known deviation,
// and when it is not, why.
func (t Test) allowance(target *Target, obs Observation) (bool, string) {
	d := t.Deviation
	switch {
	case d == nil:
		return false, "the test has no known deviation"
	case !target.Upstream:
		return false, "known upstream deviations are allowed only to upstream Kubernetes, and the target is " + target.Kind
	case obs.At == nil:
		return false, "the observation names no endpoint (a bug in the test)"
	case !InRange(obs.At.Version, d.Since, d.Until):
		return false, fmt.Sprintf("%s, where it was seen, is %s, outside the deviation's range %s", obs.At.Name, obs.At.Version, versionRange(d.Since, d.Until))
	case d.Allows == nil || !d.Allows(obs):
		return false, fmt.Sprintf("the deviation allows only %s; seen: %s", d.Allowed, obs)
	}
	return true, ""
}

// Deviation runs the assertions f about obs, the behaviour the test's known upstream
// deviation covers. f must assert on obs alone: every request and every precondition goes
// before it and fails normally. When f fails and the deviation allows obs (Test.allowance),
// the failure is recorded as the deviation and the test goes on; any other failure fails
// the test, saying why it is not the deviation. Whether the deviation was observed or
// found absent, and where, goes into the report (report.DeviationCheck), so that a
// deviation's version range is judged only by runs that looked.
func (e *Env) Deviation(obs Observation, f func()) {
	tc := e.current
	check := report.DeviationCheck{Seen: report.DeviationAbsent}
	if obs.At != nil {
		check.Endpoint, check.Version = obs.At.Name, obs.At.Version
	}
	err := gomega.InterceptGomegaFailure(f)
	if err == nil {
		ginkgo.AddReportEntry(deviationCheckEntry, check)
		return
	}
	ok, why := tc.allowance(e.Target, obs)
	if !ok {
		ginkgo.Fail(fmt.Sprintf("%s\n(not the known upstream deviation: %s)", err.Error(), why), 1)
	}
	d := tc.Deviation
	check.Seen = report.DeviationObserved
	ginkgo.AddReportEntry(deviationCheckEntry, check)
	ginkgo.AddReportEntry(deviationEntry, fmt.Sprintf("%s (upstream Kubernetes %s). Observed %s: %s", d.Summary,
		versionRange(d.Since, d.Until), obs, abbreviate(err.Error(), 600)))
}
