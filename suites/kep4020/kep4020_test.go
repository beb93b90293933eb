package kep4020_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/suites"
)

// codeLine is how a point says where the code is: a Go file and a line.
var codeLine = regexp.MustCompile(`\.go:\d+`)

// TestPointsAreCompleteAndDocumented: every point a suite's test carries names its KEP
// section, both sides, a code line and the versions read, and docs/spec-vs-code.md, the
// page that lists every disagreement, names the test and the section.
func TestPointsAreCompleteAndDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/spec-vs-code.md")
	if err != nil {
		t.Fatalf("docs/spec-vs-code.md: %v", err)
	}
	points := 0
	for _, tc := range suites.All() {
		for _, p := range tc.SpecVsCode {
			points++
			for name, v := range map[string]string{"Spec": p.Spec, "Section": p.Section, "SpecSays": p.SpecSays,
				"CodeDoes": p.CodeDoes, "CodeRef": p.CodeRef, "CodeVersions": p.CodeVersions} {
				if strings.TrimSpace(v) == "" {
					t.Errorf("%s: a point without %s: %+v", tc.ID, name, p)
				}
			}
			if !codeLine.MatchString(p.CodeRef) {
				t.Errorf("%s: CodeRef %q names no file:line", tc.ID, p.CodeRef)
			}
			if p.SpecSays == p.CodeDoes {
				t.Errorf("%s: the KEP and the code say the same (%q): no disagreement", tc.ID, p.CodeDoes)
			}
			if !strings.Contains(string(page), tc.ID) {
				t.Errorf("docs/spec-vs-code.md does not name %s, which carries a point (%s)", tc.ID, p.Section)
			}
			if !strings.Contains(string(page), p.Section) {
				t.Errorf("docs/spec-vs-code.md does not name the section %q of %s's point", p.Section, tc.ID)
			}
		}
	}
	if points == 0 {
		t.Fatal("no suite test carries a point: the tables lost them")
	}
}
