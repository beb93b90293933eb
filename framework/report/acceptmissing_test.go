package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestAcceptedMissingLeavesTheRunComplete: a test skipped for lacking a feature the user
// accepted does not make the run incomplete, is still listed skipped and missing (the
// profile stays partial: nothing is claimed about it), and is said apart from NOT TESTED;
// one lacking another feature, or lacking something that is no feature, still makes the
// run incomplete. The schema takes the new fields.
func TestAcceptedMissingLeavesTheRunComplete(t *testing.T) {
	lacking := func(id, feature string) Test {
		tc := skip(id, "p", Missing)
		tc.MissingFeature, tc.SkipReason = feature, "missing "+feature+": why"
		return tc
	}
	for _, tc := range []struct {
		name     string
		accepted []string
		tests    []Test
		want     Verdict
	}{
		{"accepted", []string{"AuditLog"}, []Test{pass("a", "p"), lacking("b", "AuditLog")}, VerdictPassed},
		{"another feature", []string{"AuditLog"}, []Test{pass("a", "p"), lacking("b", "AuditLog"), lacking("c", "Skew")}, VerdictIncomplete},
		{"no feature named", []string{"AuditLog"}, []Test{pass("a", "p"), skip("b", "p", Missing)}, VerdictIncomplete},
		{"none accepted", nil, []Test{pass("a", "p"), lacking("b", "AuditLog")}, VerdictIncomplete},
		{"a failure still fails", []string{"AuditLog"}, []Test{{ID: "a", Profile: "p", Result: Failed}, lacking("b", "AuditLog")}, VerdictFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conformance{ProfilesRequested: []string{"p"}, AcceptedMissing: tc.accepted, Tests: tc.tests}
			Summarize(c)
			if got := c.Verdict(); got != tc.want {
				t.Errorf("verdict %v, want %v", got, tc.want)
			}
			if tc.want == VerdictPassed {
				if c.Profiles[0].Result != ProfilePartial || len(c.MissingTests()) != 0 || len(c.AcceptedTests()) != 1 {
					t.Errorf("profile %+v, missing %d, accepted %d: want partial, 0, 1", c.Profiles[0], len(c.MissingTests()), len(c.AcceptedTests()))
				}
				var out bytes.Buffer
				WriteSummary(&out, c, nil)
				if s := out.String(); !strings.Contains(s, "NOT TESTED, ACCEPTED (--accept-missing AuditLog): 1 tests") || strings.Contains(s, "\nNOT TESTED:") {
					t.Errorf("the summary does not set the accepted test apart:\n%s", s)
				}
			}
		})
	}
	c := sample()
	c.AcceptedMissing = []string{"AuditLog"}
	tc := skip("m-1", "core", Missing)
	tc.MissingFeature = "AuditLog"
	c.Tests = append(c.Tests, tc)
	Summarize(c)
	b, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(b); err != nil {
		t.Errorf("a report with acceptedMissing and missingFeature does not validate: %v", err)
	}
}
