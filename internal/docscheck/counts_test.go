package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/suites"
)

// profileCount is a count of a profile's tests written in prose: "all 13 ipmode tests",
// "the 32 mvp and discovery tests", across a line break too; profileName is one profile
// of its list. The profiles are the suites' own, so a profile added to them has its
// counts checked without an edit here.
var profileCount, profileName = profilePatterns(profiles())

// profiles are the distinct profiles of the suites' tests, in their order.
func profiles() []string {
	var out []string
	for _, tc := range suites.All() {
		if !slices.Contains(out, tc.Profile) {
			out = append(out, tc.Profile)
		}
	}
	return out
}

// profilePatterns are profileCount and profileName of these profiles. The longest go
// first, each a whole word: a profile whose name begins another's ("soak" and
// "soak-long") must not take the other's first part.
func profilePatterns(profiles []string) (count, name *regexp.Regexp) {
	quoted := make([]string, len(profiles))
	for i, p := range profiles {
		quoted[i] = regexp.QuoteMeta(p)
	}
	slices.SortStableFunc(quoted, func(a, b string) int { return len(b) - len(a) })
	one := `(?:` + strings.Join(quoted, "|") + `)`
	count = regexp.MustCompile(`\b(\d+)\s+(` + one + `(?:(?:,\s*|\s+and\s+)` + one + `)*)\s+tests\b`)
	name = regexp.MustCompile(`\b` + one + `\b`)
	return count, name
}

// TestProfileCountsAreCurrent: a page that says how many tests a profile has says what the
// suites hold, so a test added to a suite cannot leave "all 25 mvp and discovery tests"
// behind. A dated measurement counts what ran that day and is not checked
// (measurements.md); tests.md is generated from the suites.
func TestProfileCountsAreCurrent(t *testing.T) {
	have := map[string]int{}
	for _, tc := range suites.All() {
		have[tc.Profile]++
	}
	for _, page := range pages(t) {
		if base := filepath.Base(page); base == "measurements.md" || base == "tests.md" {
			continue
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range profileCount.FindAllStringSubmatchIndex(text, -1) {
			said, _ := strconv.Atoi(text[m[2]:m[3]])
			want := 0
			for _, p := range profileName.FindAllString(text[m[4]:m[5]], -1) {
				want += have[p]
			}
			if said != want {
				line := strings.Count(text[:m[0]], "\n") + 1
				t.Errorf("%s:%d says %q: the suites hold %d", page, line, strings.Join(strings.Fields(text[m[0]:m[1]]), " "), want)
			}
		}
	}
}

// Every profile the suites have is one whose counts are checked, in prose as the pages
// write it, with no list of them here to keep up.
func TestProfileCountsKnowEveryProfile(t *testing.T) {
	if len(profiles()) < 2 {
		t.Fatalf("the suites have profiles %q; the test needs two", profiles())
	}
	first := profiles()[0]
	for _, p := range profiles() {
		for _, prose := range []string{"all 7 " + p + " tests", "the 9 " + first + " and\n" + p + " tests", "12 " + first + ", " + p + " tests"} {
			m := profileCount.FindStringSubmatch(prose)
			if m == nil || !slices.Contains(profileName.FindAllString(m[2], -1), p) {
				t.Errorf("%q: %q is not a count of profile %s", prose, m, p)
			}
		}
	}
}

// The patterns of a list of profiles find each in prose as a whole word, the longest
// first, and nothing that is not one of them.
func TestProfilePatterns(t *testing.T) {
	count, name := profilePatterns([]string{"mvp", "race", "races", "soak", "soak-long"})
	for _, c := range []struct {
		prose string
		names []string // nil: no count
	}{
		{"all 3 race tests", []string{"race"}},
		{"the 5 races and soak-long tests", []string{"races", "soak-long"}},
		{"4 mvp, soak tests", []string{"mvp", "soak"}},
		{"the 13 ipmode tests", nil},
		{"2 racers tests", nil},
	} {
		var got []string
		if m := count.FindStringSubmatch(c.prose); m != nil {
			got = name.FindAllString(m[2], -1)
		}
		if !slices.Equal(got, c.names) {
			t.Errorf("%q: profiles %q, want %q", c.prose, got, c.names)
		}
	}
}

// TestVersionMatrixRangesAreCurrent: version-matrix.md's "tests from" table gives each
// profile the first release its tests run from (the lowest Since), names every test of it
// that starts later, and "No test has an upper bound" stays true.
func TestVersionMatrixRangesAreCurrent(t *testing.T) {
	page := filepath.Join(root, "docs", "version-matrix.md")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	since := map[string]string{} // profile → lowest Since
	for _, tc := range suites.All() {
		if tc.Until != "" && strings.Contains(string(b), "No test has an upper bound") {
			t.Errorf("%s has an upper bound (%s), but the page says no test has one", tc.ID, tc.Until)
		}
		if s, ok := since[tc.Profile]; !ok || minorOf(tc.Since) < minorOf(s) {
			since[tc.Profile] = tc.Since
		}
	}
	row := regexp.MustCompile(`^\| ([a-z, ]+) \| (1\.\d+)(.*)\|$`)
	testID := regexp.MustCompile(`[A-Z]+-\d+`)
	seen := map[string]bool{}
	for n, line := range lines(t, page) {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		named := testID.FindAllString(m[3], -1)
		for _, p := range strings.Split(m[1], ",") {
			p = strings.TrimSpace(p)
			seen[p] = true
			if since[p] != m[2] {
				t.Errorf("%s:%d gives %s tests from %s; its lowest Since is %q", page, n, p, m[2], since[p])
			}
			for _, tc := range suites.All() {
				if tc.Profile == p && tc.Since != since[p] && !slices.Contains(named, tc.ID) {
					t.Errorf("%s:%d does not name %s, a %s test from %s", page, n, tc.ID, p, tc.Since)
				}
			}
		}
	}
	for p := range since {
		if !seen[p] {
			t.Errorf("%s's table has no row for profile %s", page, p)
		}
	}
}

// minorOf is the minor number of "1.N".
func minorOf(v string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(v, "1."))
	return n
}
