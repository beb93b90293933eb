package campaign

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// The reasons table names only tests of the matrix's profiles and mutants the plan has.
func TestMutationReasonsNameWhatExists(t *testing.T) {
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}})
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, tc := range mutationTests(runs) {
		tests = append(tests, tc.ID)
	}
	for id := range suites.MutationReasons.Tests {
		if !slices.Contains(tests, id) {
			t.Errorf("the reasons table names test %s, which no profile of the matrix has", id)
		}
	}
	for name := range suites.MutationReasons.Mutants {
		if !slices.ContainsFunc(runs, func(r matrix.MutationRun) bool { return r.Name == name && !r.Baseline() }) {
			t.Errorf("the reasons table names mutant %s, which no reference's registry has", name)
		}
	}
}

// Every mutant of every registry claims the tests its flaw must fail, each a test of its
// family's profiles with a fragment to look for; no claim names a mutant or a test that
// does not exist.
func TestMutantClaims(t *testing.T) {
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}})
	if err != nil {
		t.Fatal(err)
	}
	profileOf := map[string]string{}
	for _, tc := range mutationTests(runs) {
		profileOf[tc.ID] = tc.Profile
	}
	for _, r := range runs {
		if !r.Baseline() && len(suites.MutantCatches[r.Name]) == 0 {
			t.Errorf("mutant %s claims no test: add its claims to suites/mutation_%s.go", r.Name, r.Family)
		}
	}
	for name, tests := range suites.MutantCatches {
		i := slices.IndexFunc(runs, func(r matrix.MutationRun) bool { return r.Name == name && !r.Baseline() })
		if i < 0 {
			t.Errorf("a claim names mutant %s, which no reference's registry has", name)
			continue
		}
		for id, fragment := range tests {
			if p, ok := profileOf[id]; !ok || !slices.Contains(runs[i].Profiles, p) || strings.TrimSpace(fragment.Assertion) == "" {
				t.Errorf("mutant %s claims test %s (at %s), which its profiles %v lack, or with nothing to look for", name, id, fragment, runs[i].Profiles)
			}
		}
	}
}

// --mutants keeps the matching mutants and their families' baselines (the baseline of every
// test and the baseline with the mutant's focus), no other family.
func TestMutationPlanFilter(t *testing.T) {
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}, Mutants: "^peerproxy/drop-impersonation$"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range runs {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"peerproxy", "peerproxy@drop-impersonation", "peerproxy/drop-impersonation"}) {
		t.Errorf("runs %v, want the peerproxy baseline, the baseline with drop-impersonation's focus, and drop-impersonation", names)
	}
	if got := strings.Join(runs[2].Args, " "); !strings.Contains(got, "--reference peerproxy --reference-flaw drop-impersonation") ||
		!strings.Contains(got, "--versions v1.35.4,v1.36.3,v1.36.3") {
		t.Errorf("args %q", got)
	}
	if _, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}, Mutants: "nosuch"}); err == nil || !strings.Contains(err.Error(), "--list") {
		t.Errorf("a filter matching nothing should be refused, pointing at --list; got %v", err)
	}
	if _, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.36.3"}}); err == nil {
		t.Error("one version should be refused: a run needs the older and the newer")
	}
}

// A mutant's run selects exactly the tests it claims, within --focus; its baseline every
// test --focus allows; --every-test gives each mutant every test; a --focus that leaves a
// mutant none of its claims drops the mutant, and one that leaves none, the matrix.
func TestMutationRunsFocusOnClaims(t *testing.T) {
	versions := []string{"v1.35.4", "v1.36.3"}
	const mutant = "peerproxy/forward-as-itself"
	focusOf := func(r matrix.MutationRun) string { return focusOf(r.Args) }
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: versions, Mutants: "^" + mutant + "$"})
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs %+v, %v; want the baseline, the baseline with the mutant's focus, and %s", runs, err, mutant)
	}
	if f := focusOf(runs[0]); f != "" {
		t.Errorf("the baseline's focus %q, want none: it runs every test", f)
	}
	if !runs[1].Focused() || focusOf(runs[1]) != focusOf(runs[2]) || !slices.Equal(runs[1].BaselineFor, []string{mutant}) {
		t.Errorf("run 2 %+v: want the baseline with %s's focus %q", runs[1], mutant, focusOf(runs[2]))
	}
	focus := regexp.MustCompile(focusOf(runs[2]))
	tests, _ := framework.Select(suites.All(), runs[2].Profiles)
	for _, tc := range tests {
		_, claimed := suites.MutantCatches[mutant][tc.ID]
		if got := focus.MatchString(tc.Profile + " " + framework.SpecText(tc)); got != claimed {
			t.Errorf("%s: selected %v, claimed %v (focus %s)", tc.ID, got, claimed, focus)
		}
	}

	// The mutant runs what the baseline runs: no baseline of its focus is needed.
	runs, err = PlanMutation(MutationOptions{Jobs: 1, Versions: versions, Mutants: "^" + mutant + "$", EveryTest: true})
	if err != nil || len(runs) != 2 || focusOf(runs[1]) != "" {
		t.Errorf("--every-test: %d runs, focus %q, %v; want two, no focus", len(runs), focusOf(runs[1]), err)
	}
	runs, err = PlanMutation(MutationOptions{Jobs: 1, Versions: versions, Mutants: "^" + mutant + "$", Focus: "MVP-044"})
	if err != nil || len(runs) != 2 || focusOf(runs[0]) != "MVP-044" || focusOf(runs[1]) != `\[(MVP-044)\]` {
		t.Errorf("--focus MVP-044: %v; baseline %q, mutant %q; want MVP-044 and its claim MVP-044 alone", err, focusOf(runs[0]), focusOf(runs[1]))
	}
	if _, err := PlanMutation(MutationOptions{Jobs: 1, Versions: versions, Mutants: "^" + mutant + "$", Focus: "MVP-001"}); err == nil || !strings.Contains(err.Error(), "leave no mutant") {
		t.Errorf("--focus on a test the only mutant does not claim: %v, want refused", err)
	}
}

// Each family's baseline runs again with every distinct focus its mutants have, once per
// focus: every mutant whose run selects other tests than the baseline's has exactly one
// baseline of its focus, with the baseline's flags but the focus, and mutants that share a
// focus share the run.
func TestMutationBaselinesRunEveryMutantsFocus(t *testing.T) {
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}})
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]matrix.MutationRun{}
	of := map[string][]matrix.MutationRun{} // mutant -> the focused baselines naming it
	focuses := map[string]string{}          // family + focus -> the focused baseline's name
	for _, r := range runs {
		switch {
		case r.Focused():
			key := r.Family + " " + focusOf(r.Args)
			if other, dup := focuses[key]; dup {
				t.Errorf("%s and %s are baselines of one focus", other, r.Name)
			}
			focuses[key] = r.Name
			if b := base[r.Family]; !slices.Equal(withoutFocus(r.Args), b.Args) || r.Mutant != "" {
				t.Errorf("%s: flags %q, want the baseline's %q and a focus", r.Name, r.Args, b.Args)
			}
			for _, m := range r.BaselineFor {
				of[m] = append(of[m], r)
			}
		case r.Baseline():
			base[r.Family] = r
		}
	}
	shared := 0
	for _, r := range runs {
		if r.Baseline() {
			continue
		}
		fb := of[r.Name]
		if len(fb) != 1 || focusOf(fb[0].Args) != focusOf(r.Args) {
			t.Errorf("mutant %s (focus %q): baselines of its focus %+v, want one with its focus", r.Name, focusOf(r.Args), fb)
			continue
		}
		if fb[0].BaselineFor[0] != r.Name {
			shared++
		}
	}
	t.Logf("%d runs, %d baselines of a focus, %d mutants sharing one", len(runs), len(focuses), shared)
}

// Every mutant has a row in docs/references.md's mutant tables, and the row's last cell
// lists exactly the tests its claims name: the page a vendor reads to learn what each flaw
// proves cannot fall behind the claims.
func TestReferencesPageListsEveryMutant(t *testing.T) {
	page, err := os.ReadFile("../../../docs/references.md")
	if err != nil {
		t.Fatal(err)
	}
	family := map[string]string{"peer proxy": "peerproxy", "gateway": "gateway", "dataplane": "ipmode", "upstream controllers": "controllers"}
	flaw := regexp.MustCompile("^`([^`]+)`")
	rows := map[string]string{} // mutant's run name (family/flaw) → the row's last cell
	for _, line := range strings.Split(string(page), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) < 3 {
			continue
		}
		f, ok := family[strings.TrimSpace(cells[0])]
		m := flaw.FindStringSubmatch(strings.TrimSpace(cells[1]))
		if ok && m != nil {
			rows[f+"/"+m[1]] = cells[len(cells)-1]
		}
	}
	runs, err := PlanMutation(MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}})
	if err != nil {
		t.Fatal(err)
	}
	testID := regexp.MustCompile(`([A-Z]+)-(\d+)(?: to [A-Z]+-(\d+))?`) // "GW-010 to GW-016" is a range
	for _, r := range runs {
		if r.Baseline() {
			continue
		}
		row, ok := rows[r.Name]
		if !ok {
			t.Errorf("docs/references.md has no row for mutant %s", r.Name)
			continue
		}
		var listed []string
		for _, m := range testID.FindAllStringSubmatch(row, -1) {
			from, _ := strconv.Atoi(m[2])
			to := from
			if m[3] != "" {
				to, _ = strconv.Atoi(m[3])
			}
			for n := from; n <= to; n++ {
				listed = append(listed, fmt.Sprintf("%s-%0*d", m[1], len(m[2]), n))
			}
		}
		claimed := slices.Sorted(maps.Keys(suites.MutantCatches[r.Name]))
		slices.Sort(listed)
		if !slices.Equal(slices.Compact(listed), claimed) {
			t.Errorf("docs/references.md lists %v for mutant %s; its claims (suites/mutation_%s.go) name %v", listed, r.Name, r.Family, claimed)
		}
	}
}

// A report is the run's only when it ran the run's variant, the matrix's seed, the run's
// versions server by server and its focus: --rebuild over another matrix's directory, or a
// report left by an earlier run, is refused by name, not counted.
func TestForeignReportsAreRefused(t *testing.T) {
	run := &matrix.MutationRun{Name: "peerproxy/hedge-reads", Family: "peerproxy", Mutant: "hedge-reads",
		Args: []string{"--versions", "v1.35.4,v1.36.3,v1.36.3", "--focus", `\[(MVP-042)\]`}}
	servers := []report.Endpoint{{Name: "apiserver-1", Version: "v1.35.4"}, {Name: "apiserver-2", Version: "v1.36.3"}, {Name: "apiserver-3", Version: "v1.36.3"}}
	own := &report.Conformance{Variant: "hedge-reads", Seed: 7, Focus: `\[(MVP-042)\]`, Endpoints: servers}
	if why := foreignReport(run, own, 7, []string{"v1.35.4", "v1.36.3"}); why != "" {
		t.Errorf("the run's own report refused: %s", why)
	}
	for _, tc := range []struct {
		name string
		edit func(c *report.Conformance)
		want string
	}{
		{"another variant", func(c *report.Conformance) { c.Variant = "" }, `ran variant "", not "hedge-reads"`},
		{"another seed", func(c *report.Conformance) { c.Seed = 8 }, "seed 8, not the matrix's 7"},
		{"another pair", func(c *report.Conformance) { c.Endpoints[0].Version = "v1.34.4" }, "runs v1.34.4"},
		// every version one of the pair's, but not the run's servers: the older three times
		{"the older alone", func(c *report.Conformance) {
			for i := range c.Endpoints {
				c.Endpoints[i].Version = "v1.35.4"
			}
		}, "servers run [v1.35.4 v1.35.4 v1.35.4], not the run's [v1.35.4 v1.36.3 v1.36.3]"},
		{"a server fewer", func(c *report.Conformance) { c.Endpoints = c.Endpoints[:2] }, "not the run's [v1.35.4 v1.36.3 v1.36.3]"},
		{"another focus", func(c *report.Conformance) { c.Focus = "" }, `focus "", not the run's`},
	} {
		c := *own
		c.Endpoints = slices.Clone(own.Endpoints)
		tc.edit(&c)
		if why := foreignReport(run, &c, 7, []string{"v1.35.4", "v1.36.3"}); !strings.Contains(why, tc.want) {
			t.Errorf("%s: %q, want it refused saying %q", tc.name, why, tc.want)
		}
	}
	dp := &matrix.MutationRun{Name: "ipmode", Family: "ipmode"}
	if why := foreignReport(dp, &report.Conformance{Dataplane: "reference"}, 0, nil); why != "" {
		t.Errorf("the reference dataplane's report refused as the ipmode baseline's: %s", why)
	}
}
