package report

import (
	"fmt"
	"sort"
	"strings"
)

// MissedFailures checks a report against the failures a deliberately broken target must
// show: every test in want (by ID) ran and failed, and its failure says want[ID]. It
// returns one line per test that did not, so a check of a mutant cannot pass because the
// test it is about was skipped, filtered out or renamed.
func MissedFailures(c Conformance, want map[string]string) []string {
	wanted := make(map[string]string, len(want))
	for id, w := range want {
		wanted[id] = fmt.Sprintf("saying %q", w)
	}
	return Missed(c, wanted, func(id, failure string) string {
		if strings.Contains(failure, want[id]) {
			return ""
		}
		return fmt.Sprintf("failed, but not saying %q: %.400s", want[id], failure)
	})
}

// Missed is MissedFailures with the judge given: every test in want ran and failed, and
// judge(id, its failure) says why that failure is not the one wanted ("" when it is);
// want[id] says what is wanted ("saying ...", "at ..."), for the lines of the tests that
// did not.
func Missed(c Conformance, want map[string]string, judge func(id, failure string) string) []string {
	byID := map[string]Test{}
	for _, t := range c.Tests {
		byID[t.ID] = t
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []string
	for _, id := range ids {
		t, ok := byID[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: not in the report (never ran), want failed %s", id, want[id]))
		case t.Result != Failed:
			out = append(out, fmt.Sprintf("%s: %s%s, want failed %s", id, t.Result, withReason(t.SkipReason), want[id]))
		default:
			if why := judge(id, t.Failure); why != "" {
				out = append(out, fmt.Sprintf("%s: %s", id, why))
			}
		}
	}
	return out
}

func withReason(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}
