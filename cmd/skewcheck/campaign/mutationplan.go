package campaign

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/suites"
)

// MutationOptions say which runs of the mutation matrix to make, and how.
type MutationOptions struct {
	// Versions are the older and the newer kube-apiserver of every run's cluster.
	Versions []string
	// Mutants keeps the mutants whose "<family>/<variant>" matches (and their families'
	// baselines); "" keeps every one.
	Mutants string
	// Focus keeps, in every run, the tests whose "[ID] description" matches.
	Focus string
	// EveryTest runs every test of a family's profiles against each mutant, not only
	// the tests it claims.
	EveryTest bool
	Seed      int64 // 0: from the clock
	ReportDir string
	// Jobs is how many runs go at a time, each on a cluster of its own.
	Jobs     int
	Binaries binaries.Options
	// Self is the skewcheck binary each run is.
	Self string
}

// PlanMutation lists the runs: for every family with a mutant o.Mutants keeps (and with a
// claimed test o.Focus keeps), its baseline, the baseline again with each distinct focus
// of those mutants (focusedBaselines), then the mutants, each with its focus (runFocus).
func PlanMutation(o MutationOptions) ([]matrix.MutationRun, error) {
	if o.Jobs < 1 {
		return nil, fmt.Errorf("--jobs %d: give how many runs go at a time, 1 or more", o.Jobs)
	}
	if len(o.Versions) != 2 {
		return nil, fmt.Errorf("--versions %s: give two, the older and the newer apiserver", strings.Join(o.Versions, ","))
	}
	keep := regexp.MustCompile("")
	if o.Mutants != "" {
		var err error
		if keep, err = regexp.Compile(o.Mutants); err != nil {
			return nil, fmt.Errorf("--mutants: %w", err)
		}
	}
	var focus *regexp.Regexp
	if o.Focus != "" {
		var err error
		if focus, err = regexp.Compile(o.Focus); err != nil {
			return nil, fmt.Errorf("--focus: %w", err)
		}
	}
	var runs []matrix.MutationRun
	for _, fam := range mutantFamilies {
		var family []matrix.MutationRun
		var baselineFocus string
		for _, v := range append([]string{""}, fam.variants()...) {
			if v != "" && !keep.MatchString(fam.name+"/"+v) {
				continue
			}
			r := matrix.MutationRun{Name: fam.name, Family: fam.name, Mutant: v, Profiles: fam.profiles(),
				Args: append(append(fam.cluster(o.Versions[0], o.Versions[1]), "--profiles", strings.Join(fam.profiles(), ",")), fam.front(v)...)}
			if v != "" {
				r.Name += "/" + v
			}
			r.Dir = filepath.Join(fam.name, cmp.Or(v, "baseline"))
			selected, all := runFocus(r, o, focus)
			if !all && selected == "" {
				continue // --focus leaves out every test the mutant claims
			}
			if selected != "" {
				r.Args = append(r.Args, "--focus", selected)
			}
			if v == "" {
				baselineFocus = selected
			}
			family = append(family, r)
		}
		if len(family) > 1 { // the baseline and a mutant at least
			runs = append(runs, family[0])
			runs = append(runs, focusedBaselines(family[0], baselineFocus, family[1:])...)
			runs = append(runs, family[1:]...)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("--mutants %q and --focus %q leave no mutant with a test to run; see skewcheck mutation --list", o.Mutants, o.Focus)
	}
	return runs, nil
}

// focusedBaselines are the family's baseline run again with each distinct focus of its
// mutants, a run per focus, named after the first mutant that has it
// ("peerproxy@drop-impersonation"). A mutant runs only its claimed tests, its baseline
// every test: a test that fails run alone, or without what an earlier test left, would
// fail against the mutant for that, not for its flaw. The reference as shipped must pass
// each mutant's run as the mutant runs it, or the mutant's failure is no catch
// (matrix.Mutation.Build). A mutant whose focus selects what the baseline runs (no claims,
// --every-test, or a --focus that leaves only its claims) needs none: the baseline is it.
func focusedBaselines(baseline matrix.MutationRun, baselineFocus string, mutants []matrix.MutationRun) []matrix.MutationRun {
	var out []matrix.MutationRun
	byFocus := map[string]int{} // focus -> index in out
	for _, m := range mutants {
		focus := focusOf(m.Args)
		if sameSelection(baseline.Profiles, focus, baselineFocus) {
			continue
		}
		if i, ok := byFocus[focus]; ok {
			out[i].BaselineFor = append(out[i].BaselineFor, m.Name)
			continue
		}
		r := baseline
		r.Name = baseline.Family + "@" + m.Mutant
		r.Dir = filepath.Join(baseline.Family, "baseline@"+m.Mutant)
		r.BaselineFor = []string{m.Name}
		r.Args = append(slices.Clone(withoutFocus(baseline.Args)), "--focus", focus)
		byFocus[focus] = len(out)
		out = append(out, r)
	}
	return out
}

// focusOf is the --focus of a run's flags, "" without one.
func focusOf(args []string) string { return argOf(args, "--focus") }

// argOf is the value of flag in a run's flags (given as two words), "" without it.
func argOf(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// withoutFocus is a run's flags without its --focus.
func withoutFocus(args []string) []string {
	if i := slices.Index(args, "--focus"); i >= 0 && i+1 < len(args) {
		return slices.Concat(args[:i], args[i+2:])
	}
	return args
}

// sameSelection reports whether two --focus values select the same tests of the profiles
// (ginkgo matches a focus against "<profile> [ID] description").
func sameSelection(profiles []string, a, b string) bool {
	if a == b {
		return true
	}
	ra, errA := regexp.Compile(a)
	rb, errB := regexp.Compile(b)
	if errA != nil || errB != nil {
		return false
	}
	tests, _ := framework.Select(suites.All(), profiles)
	for _, t := range tests {
		text := t.Profile + " " + framework.SpecText(t)
		if ra.MatchString(text) != rb.MatchString(text) {
			return false
		}
	}
	return true
}

// runFocus is the --focus of run r, and whether it selects every test o.Focus allows
// ("" then means no focus at all). A baseline runs every test of its family's profiles. A
// mutant runs only the tests it claims (suites.MutantCatches), since only a claimed failure
// counts: the others cannot change the matrix's figures, and a peer proxy mutant's run of
// every profile takes minutes. A mutant that claims nothing, and every mutant with
// o.EveryTest, runs every test, so its unclaimed failures show.
func runFocus(r matrix.MutationRun, o MutationOptions, focus *regexp.Regexp) (string, bool) {
	claimed := suites.MutantCatches[r.Name]
	if r.Baseline() || o.EveryTest || len(claimed) == 0 {
		return o.Focus, true
	}
	tests, _ := framework.Select(suites.All(), r.Profiles)
	var ids []string
	for _, t := range tests {
		if _, ok := claimed[t.ID]; ok && (focus == nil || focus.MatchString(t.Profile+" "+framework.SpecText(t))) {
			ids = append(ids, regexp.QuoteMeta(t.ID))
		}
	}
	if len(ids) == 0 {
		return "", false
	}
	// ginkgo matches a focus against the spec's whole text: "<profile> [ID] description".
	return `\[(` + strings.Join(ids, "|") + `)\]`, false
}
