package suites_test

import (
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// Every test says what it writes (framework.Test.Makes), each write whole; and one that
// may run on a cluster skewcheck does not own writes only in the run's footprint: its
// namespace, objects labelled with the run, or nothing stored. That is what --dry-run
// prints, and all a run there may do.
func TestEveryTestDeclaresItsWrites(t *testing.T) {
	for _, tc := range suites.All() {
		if tc.Makes == nil {
			t.Errorf("%s does not say what it writes: set Makes (framework.NoWrites when it only reads)", tc.ID)
			continue
		}
		unowned := len(tc.NeverOnUnowned()) == 0
		for _, w := range tc.Makes {
			if w.Resource == "" || w.Scope == "" || w.Why == "" || len(w.Verbs) == 0 {
				t.Errorf("%s: write %+v lacks its resource, verbs, scope or why", tc.ID, w)
			}
			for _, v := range w.Verbs {
				if !slices.Contains(framework.WriteVerbs, v) {
					t.Errorf("%s: write of %s names verb %q; a write's verbs are %v", tc.ID, w.Resource, v, framework.WriteVerbs)
				}
			}
			if unowned && !w.Scope.InFootprint() {
				t.Errorf("%s may run on a cluster skewcheck does not own, and writes %s %s: make it write in the run's namespace (framework.TestNamespace) or label it (framework.RunLabels), or have it need a feature such a cluster never has",
					tc.ID, w.Resource, w.Scope)
			}
		}
	}
}

// The tests that may run on a cluster skewcheck does not own are the ones its features let
// there: a check that the line TestEveryTestDeclaresItsWrites draws is where it should be.
func TestWhichTestsRunUnowned(t *testing.T) {
	byID := map[string]framework.Test{}
	for _, tc := range suites.All() {
		byID[tc.ID] = tc
	}
	for id, want := range map[string]bool{
		"MVP-010": true, "MVP-041": true, "MVP-050": true, "DISC-006": true, "IPM-003": true, "IPM-006": true,
		"MVP-022": false, "MVP-052": false, "IPM-001": false, "IPM-005": false, "IPM-101": false,
		"CHAOS-006": false, "CHAOS-007": false, "RACE-005": false, "SOAK-001": false, "GW-010": false,
	} {
		tc, ok := byID[id]
		if !ok {
			t.Errorf("no test %s", id)
			continue
		}
		if got := len(tc.NeverOnUnowned()) == 0; got != want {
			t.Errorf("%s runs on a cluster skewcheck does not own: %v, want %v (it needs %v)", id, got, want, tc.Features)
		}
	}
}
