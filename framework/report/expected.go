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
			out = append(out, fmt.Sprintf("%s: not in the report (never ran), want failed saying %q", id, want[id]))
		case t.Result != Failed:
			out = append(out, fmt.Sprintf("%s: %s%s, want failed saying %q", id, t.Result, withReason(t.SkipReason), want[id]))
		case !strings.Contains(t.Failure, want[id]):
			out = append(out, fmt.Sprintf("%s: failed, but not saying %q: %.400s", id, want[id], t.Failure))
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
