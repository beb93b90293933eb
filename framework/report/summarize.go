package report

import "slices"

// Profile results. A profile is claimed whole or not at all, so there are three: every
// test passed (success), something is broken (failure), or something was not checked
// (partial) — which must not be reported as success, because a skipped test proves
// nothing about the proxy.
const (
	ProfileSuccess = "success"
	ProfileFailure = "failure"
	ProfilePartial = "partial"
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
// only an absence of one. A profile without any test is partial, not success: nothing was
// shown, so nothing may be claimed.
func profileResult(p Profile) string {
	switch {
	case p.Failed > 0:
		return ProfileFailure
	case p.Skipped == 0 && p.Passed > 0:
		return ProfileSuccess
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

// SelectionPassed reports whether a run narrowed by --focus or --skip passed everything it
// selected: some test passed, none failed, and every skipped test was left out by the
// selection, not skipped for a missing feature or version. Such a run is no conformance
// claim (its profiles stay partial) but is no failure either.
func (c *Conformance) SelectionPassed() bool {
	passed, failed, _ := c.Counts()
	if passed == 0 || failed > 0 {
		return false
	}
	for _, t := range c.Tests {
		if outcome(t.Result) == Skipped && t.SkipReason != NotSelected {
			return false
		}
	}
	return true
}
