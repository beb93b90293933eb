package app

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// checkSelection refuses a --focus or --skip that leaves no test of the profiles to run: the
// run would make its cluster to run nothing, and exit 2 ("incomplete: no test ran"). It
// chooses the tests as the run does (framework.Focus, ginkgo's matching), of the tests of
// --profiles; the expressions compile (checkBeforeBringUp has said so).
func checkSelection(f *conformanceFlags, tests []framework.Test) error {
	focus, skip := f.run.Focus, f.run.Skip
	if focus == "" && skip == "" {
		return nil
	}
	if left, err := framework.Focus(tests, focus, skip); err != nil || len(left) > 0 {
		return err
	}
	profiles := strings.Join(f.run.Profiles, ",")
	focused, _ := framework.Focus(tests, focus, "")
	switch {
	case focus == "":
		return fmt.Errorf("--skip %q skips every test of --profiles %s: skip fewer, or drop --skip", skip, profiles)
	case len(focused) > 0:
		return fmt.Errorf("--skip %q skips every test --focus %q leaves of --profiles %s: skip fewer, or drop --skip", skip, focus, profiles)
	}
	if elsewhere, _ := framework.Focus(suites.All(), focus, ""); len(elsewhere) > 0 {
		return fmt.Errorf("--focus %q matches no test of --profiles %s, only tests of %s: give --profiles %s", focus, profiles, strings.Join(profilesOf(elsewhere), ", "), strings.Join(profilesOf(elsewhere), ","))
	}
	return fmt.Errorf("--focus %q matches no test of --profiles %s (it is matched against \"[ID] description\"); the nearest IDs are %s (skewcheck conformance --list --profiles %s lists them all)",
		focus, profiles, strings.Join(nearestIDs(focus, tests, 3), ", "), profiles)
}

// profilesOf are the profiles of tests, in their order.
func profilesOf(tests []framework.Test) []string {
	var out []string
	for _, t := range tests {
		if !slices.Contains(out, t.Profile) {
			out = append(out, t.Profile)
		}
	}
	return out
}

// nearestIDs are the n IDs of tests closest to what was typed, by edit distance (case aside),
// the longer common prefix first among equals: a mistyped ID is a letter or a digit away.
func nearestIDs(typed string, tests []framework.Test, n int) []string {
	typed = strings.ToUpper(typed)
	type scored struct {
		id             string
		dist, prefixed int
	}
	var all []scored
	for _, t := range tests {
		all = append(all, scored{t.ID, editDistance(typed, strings.ToUpper(t.ID)), commonPrefix(typed, strings.ToUpper(t.ID))})
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(b.prefixed, a.prefixed))
	})
	var out []string
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.id)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes (IDs are ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			change := prev[j-1]
			if a[i-1] != b[j-1] {
				change++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, change)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
