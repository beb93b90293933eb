package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/suites"
)

// profileCount is a count of a profile's tests written in prose: "all 13 ipmode tests",
// "the 32 mvp and discovery tests", across a line break too.
var (
	profileCount = regexp.MustCompile(`\b(\d+)\s+((?:mvp|discovery|chaos|races|ipmode|gateway)(?:(?:,\s*|\s+and\s+)(?:mvp|discovery|chaos|races|ipmode|gateway))*)\s+tests\b`)
	profileName  = regexp.MustCompile(`mvp|discovery|chaos|races|ipmode|gateway`)
)

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
