package report

import (
	"slices"
	"testing"
)

func skip(id, profile string, kind SkipKind) Test {
	return Test{ID: id, Profile: profile, Result: Skipped, SkipReason: "why " + id, SkipKind: kind}
}

func pass(id, profile string) Test { return Test{ID: id, Profile: profile, Result: Passed} }

// TestNotApplicableIsNotPartial: a profile whose only non-passes do not apply to the
// target's versions is a success, and the run passes; a skip for something missing keeps
// the profile partial and makes the run incomplete, never failed.
func TestNotApplicableIsNotPartial(t *testing.T) {
	cases := []struct {
		name        string
		tests       []Test
		wantProfile string
		wantVerdict Verdict
	}{
		{"only passes", []Test{pass("a", "p"), pass("b", "p")}, ProfileSuccess, VerdictPassed},
		// discovery on 1.33 + 1.34: what passes passes, the 1.35+ tests do not apply.
		{"passes and not applicable", []Test{pass("a", "p"), skip("b", "p", NotApplicable)}, ProfileSuccess, VerdictPassed},
		{"nothing applies", []Test{skip("a", "p", NotApplicable), skip("b", "p", NotApplicable)}, ProfileNotApplicable, VerdictPassed},
		// ipmode with no dataplane: the harness lacked something.
		{"missing feature", []Test{pass("a", "p"), skip("b", "p", Missing)}, ProfilePartial, VerdictIncomplete},
		{"missing beside not applicable", []Test{pass("a", "p"), skip("b", "p", NotApplicable), skip("c", "p", Missing)}, ProfilePartial, VerdictIncomplete},
		{"only missing", []Test{skip("a", "p", Missing)}, ProfilePartial, VerdictIncomplete},
		{"a failure wins", []Test{{ID: "a", Profile: "p", Result: Failed}, skip("b", "p", Missing)}, ProfileFailure, VerdictFailed},
		{"failure beside not applicable", []Test{{ID: "a", Profile: "p", Result: Failed}, skip("b", "p", NotApplicable)}, ProfileFailure, VerdictFailed},
		{"deselected with a pass", []Test{pass("a", "p"), skip("b", "p", Deselected)}, ProfilePartial, VerdictPassed},
		{"deselected everything", []Test{skip("a", "p", Deselected)}, ProfilePartial, VerdictIncomplete},
		// A report written before SkipKind: a reason is a missing feature unless it is the selection's.
		{"old report skip", []Test{pass("a", "p"), {ID: "b", Profile: "p", Result: Skipped, SkipReason: "needs feature X"}}, ProfilePartial, VerdictIncomplete},
		{"old report selection", []Test{pass("a", "p"), {ID: "b", Profile: "p", Result: Skipped, SkipReason: NotSelected}}, ProfilePartial, VerdictPassed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conformance{ProfilesRequested: []string{"p"}, Tests: tc.tests}
			Summarize(c)
			if got := c.Profiles[0].Result; got != tc.wantProfile {
				t.Errorf("profile result = %s, want %s (%+v)", got, tc.wantProfile, c.Profiles[0])
			}
			if got := c.Verdict(); got != tc.wantVerdict {
				t.Errorf("Verdict() = %d, want %d", got, tc.wantVerdict)
			}
			if c.Success() != (tc.wantProfile == ProfileSuccess) {
				t.Errorf("Success() = %v with profile %s", c.Success(), tc.wantProfile)
			}
		})
	}
}

func TestNotApplicableCountedAndMissingListed(t *testing.T) {
	c := &Conformance{ProfilesRequested: []string{"p", "q"}, Tests: []Test{
		pass("a", "p"), skip("b", "p", NotApplicable), skip("c", "p", NotApplicable),
		pass("d", "q"), skip("e", "q", Missing),
	}}
	Summarize(c)
	if p := c.Profiles[0]; p.NotApplicable != 2 || p.Skipped != 2 || p.Result != ProfileSuccess {
		t.Errorf("profile p = %+v, want 2 skipped, both not applicable, success", p)
	}
	if q := c.Profiles[1]; q.NotApplicable != 0 || q.Result != ProfilePartial {
		t.Errorf("profile q = %+v, want partial", q)
	}
	var ids []string
	for _, m := range c.MissingTests() {
		ids = append(ids, m.ID)
	}
	if !slices.Equal(ids, []string{"e"}) {
		t.Errorf("MissingTests = %v, want [e]", ids)
	}
	// The closing line is a contract: not-applicable tests are still skipped in it.
	if got := ClosingLine(c); got != "2 passed, 0 failed, 3 skipped" {
		t.Errorf("closing line = %q", got)
	}
}

// TestSkipKindsValidate: the schema knows the new fields and values.
func TestSkipKindsValidate(t *testing.T) {
	c := sample()
	c.Tests = append(c.Tests, skip("na-1", "core", NotApplicable), skip("m-1", "core", Missing), skip("d-1", "core", Deselected))
	c.ProfilesRequested = []string{"core", "na"}
	c.Tests = append(c.Tests, skip("na-2", "na", NotApplicable))
	Summarize(c)
	b, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(b); err != nil {
		t.Errorf("a report with skip kinds and a not-applicable profile does not validate: %v", err)
	}
	bad := skip("x", "core", "because")
	c.Tests = append(c.Tests, bad)
	b, _ = marshalJSON(c)
	if Validate(b) == nil {
		t.Errorf("an unknown skipKind validated")
	}
}
