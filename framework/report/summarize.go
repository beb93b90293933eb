package report

import (
	"fmt"
	"slices"
	"strings"
)

// Profile results. A profile is claimed whole or not at all: every test that applies
// passed (success), something is broken (failure), something that applies was not checked
// (partial) — which must not be reported as success, because a skipped test proves
// nothing about the proxy — or no test applies to the target at all (not-applicable).
const (
	ProfileSuccess       = "success"
	ProfileFailure       = "failure"
	ProfilePartial       = "partial"
	ProfileNotApplicable = "not-applicable"
)

// outcome folds a Result into the three known ones. Anything else (an empty or misspelt
// Result left by a runner bug) counts as failed, so that a bug can never turn into a
// claim of conformance, and so that passed+failed+skipped always adds up to len(Tests).
func outcome(r Result) Result {
	switch r {
	case Passed, Skipped:
		return r
	default:
		return Failed
	}
}

// skipKind is why a skipped test did not run. A report written before SkipKind existed
// says so only in the reason: a skip that is not the selection's counts as Missing, so an
// old report is never read as more complete than it was.
func skipKind(t Test) SkipKind {
	switch {
	case t.SkipKind != "":
		return t.SkipKind
	case t.SkipReason == NotSelected:
		return Deselected
	default:
		return Missing
	}
}

// Summarize fills c.Profiles from c.Tests, one Profile per entry of c.ProfilesRequested,
// in the order requested (a name requested twice is summarized once). Tests whose profile
// was not requested are left out of Profiles: only what was asked for is claimed. Failed
// and skipped IDs are sorted so that two runs of the same outcome give the same report.
func Summarize(c *Conformance) {
	c.Profiles = make([]Profile, 0, len(c.ProfilesRequested))
	seen := map[string]bool{}
	for _, name := range c.ProfilesRequested {
		if seen[name] {
			continue
		}
		seen[name] = true
		p := Profile{Name: name}
		for _, t := range c.Tests {
			if t.Profile != name {
				continue
			}
			switch outcome(t.Result) {
			case Passed:
				p.Passed++
			case Skipped:
				p.Skipped++
				p.SkippedTests = append(p.SkippedTests, t.ID)
				if skipKind(t) == NotApplicable {
					p.NotApplicable++
				}
			default:
				p.Failed++
				p.FailedTests = append(p.FailedTests, t.ID)
			}
		}
		slices.Sort(p.SkippedTests)
		slices.Sort(p.FailedTests)
		p.Result = profileResult(p)
		c.Profiles = append(c.Profiles, p)
	}
}

// profileResult: failure wins over partial, because a failure is a finding and a skip is
// only an absence of one. A test that does not apply to the target is no absence: it
// neither makes a profile partial nor counts as shown. So a profile is success when
// something passed and every other test did not apply, not-applicable when no test of it
// applies, and partial otherwise (a test was skipped for something missing, or the
// profile has no test at all: nothing was shown, so nothing may be claimed).
func profileResult(p Profile) string {
	switch {
	case p.Failed > 0:
		return ProfileFailure
	case p.Skipped == p.NotApplicable && p.Passed > 0:
		return ProfileSuccess
	case p.Skipped == p.NotApplicable && p.Skipped > 0:
		return ProfileNotApplicable
	default:
		return ProfilePartial
	}
}

// Counts counts all tests of the run, whatever their profile, so that the totals match
// what was executed and what the JUnit file lists.
func (c *Conformance) Counts() (passed, failed, skipped int) {
	for _, t := range c.Tests {
		switch outcome(t.Result) {
		case Passed:
			passed++
		case Skipped:
			skipped++
		default:
			failed++
		}
	}
	return passed, failed, skipped
}

// Success reports whether every requested profile was summarized as success. It reads
// c.Profiles, so call Summarize first; a requested profile missing from Profiles counts
// FailingProfiles says, in one line, which profiles did not succeed and how many of their
// tests failed and skipped ("" when every profile succeeded or does not apply): the
// reason a command gives with its exit code.
func (c *Conformance) FailingProfiles() string {
	var out []string
	for _, p := range c.Profiles {
		if p.Result != ProfileSuccess && p.Result != ProfileNotApplicable {
			out = append(out, fmt.Sprintf("profile %s is %s (%d failed, %d skipped)", p.Name, p.Result, p.Failed, p.Skipped))
		}
	}
	return strings.Join(out, "; ")
}

// as not successful. A run that requested no profile is not a success: it claimed nothing.
func (c *Conformance) Success() bool {
	if len(c.ProfilesRequested) == 0 {
		return false
	}
	for _, name := range c.ProfilesRequested {
		i := slices.IndexFunc(c.Profiles, func(p Profile) bool { return p.Name == name })
		if i < 0 || c.Profiles[i].Result != ProfileSuccess {
			return false
		}
	}
	return true
}

// NotSelected is the skip reason of a test the run's own --focus or --skip left out.
const NotSelected = "not selected (--focus/--skip)"

// Verdict is what a run means for its exit code.
type Verdict int

const (
	// VerdictPassed: no test failed and none was left unchecked for something missing;
	// tests that do not apply, or that --focus/--skip left out, do not count.
	VerdictPassed Verdict = iota
	// VerdictFailed: a test failed. The implementation did something wrong.
	VerdictFailed
	// VerdictIncomplete: no test failed, but tests that apply could not run because the
	// target or this machine lacks what they need, or nothing ran at all. A limitation of
	// the harness or the setup, not the implementation's failure, and no claim either.
	VerdictIncomplete
)

// Verdict decides the run: a failure wins; then anything that applies and was not checked
// makes the run incomplete; a run in which no test passed is incomplete too, unless no
// test applies to the target at all (then there was nothing to check, and nothing is
// claimed: its profiles are not-applicable).
func (c *Conformance) Verdict() Verdict {
	passed, failed, _ := c.Counts()
	if failed > 0 {
		return VerdictFailed
	}
	applicable := 0
	for _, t := range c.Tests {
		if outcome(t.Result) != Skipped {
			applicable++
			continue
		}
		switch skipKind(t) {
		case Missing:
			if !c.accepted(t) {
				return VerdictIncomplete
			}
		case Deselected:
			applicable++
		}
	}
	if passed == 0 && applicable > 0 {
		return VerdictIncomplete
	}
	return VerdictPassed
}

// accepted says whether t was skipped for lacking only a feature the user accepted the
// target lacks (AcceptedMissing).
func (c *Conformance) accepted(t Test) bool {
	return t.MissingFeature != "" && slices.Contains(c.AcceptedMissing, t.MissingFeature)
}

// AcceptedTests lists the tests skipped as missing a feature the user accepted the target
// lacks: not checked, and said so, but not counted against the run.
func (c *Conformance) AcceptedTests() []Test {
	var out []Test
	for _, t := range c.Tests {
		if outcome(t.Result) == Skipped && skipKind(t) == Missing && c.accepted(t) {
			out = append(out, t)
		}
	}
	return out
}

// MissingTests lists the tests skipped because something they need is missing, the ones
// a reader must be told about loudly (those the user accepted, AcceptedTests, apart).
func (c *Conformance) MissingTests() []Test {
	var out []Test
	for _, t := range c.Tests {
		if outcome(t.Result) == Skipped && skipKind(t) == Missing && !c.accepted(t) {
			out = append(out, t)
		}
	}
	return out
}
