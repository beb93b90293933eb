//go:build !incluster

package app

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

type mutationOptions struct {
	versions  []string
	mutants   string
	focus     string
	everyTest bool
	seed      int64
	reportDir string
	list      bool
	rebuild   bool
	jobs      int
	bin       binaries.Options
}

func newMutationCommand(streams IOStreams) *cobra.Command {
	var o mutationOptions
	cmd := &cobra.Command{
		Use:   "mutation",
		Short: "The mutation matrix: every deliberately flawed reference against its profiles, to show every test can fail",
		Long: `Runs each reference implementation as shipped (its baseline), then each of its
deliberately wrong variants (a mutant), through the profiles that must catch them, each
as its own 'skewcheck conformance' on a local cluster of its own, --jobs at a time:
  peerproxy  the reference peer proxy's flaws (--reference-flaw), profiles mvp, discovery,
             chaos and races, on three servers (the older, the newer twice) so a second hop
             has somewhere to go;
  gateway    the reference gateway's defects (--gateway-defect), profile gateway;
  ipmode     the reference dataplane's flawed variants (--dataplane), profile ipmode.
The mutants are read from each reference's own registry, so a new flaw joins the matrix.

A baseline runs every test of its profiles; a mutant only the tests it claims
(suites/mutation_*.go), since only a claimed failure, for the claim's reason, counts
(--every-test runs them all, to see its unclaimed failures too).

A test is failed by a mutant when it fails against the mutant, as the mutant claims, and
passes against the baseline. Writes mutation.json and mutation.md to --report-dir, each
run's report beside them. Exit 1 when a run left no report, a test fails against a
baseline, or a test no mutant fails or a mutant no test catches has no reason in the
reasons table (suites/mutation.go).`,
		Example: "  skewcheck mutation --versions v1.35.4,v1.36.3\n" +
			"  skewcheck mutation --list\n" +
			"  skewcheck mutation --mutants '^peerproxy/drop-impersonation$' --focus 'MVP-042'",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.jobs < 1 {
				return fmt.Errorf("--jobs %d: give how many runs go at a time, 1 or more", o.jobs)
			}
			plan, err := planMutation(o)
			if err != nil {
				return err
			}
			if o.list {
				printMutationPlan(streams.Out, plan)
				return nil
			}
			if o.rebuild {
				return rebuildMutation(streams, o, plan)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runMutation(ctx, streams, o, plan)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.versions, "versions", []string{"v1.35.4", "v1.36.3"}, "the older and the newer kube-apiserver of every run's cluster")
	f.StringVar(&o.mutants, "mutants", "", `run only the mutants whose "<family>/<variant>" matches this regular expression (and their families' baselines)`)
	f.StringVar(&o.focus, "focus", "", "only tests whose \"[ID] description\" matches, in every run; the matrix then holds only those")
	f.BoolVar(&o.everyTest, "every-test", false, "run every test of its family's profiles against each mutant, not only the tests it claims: slower, and only then are a mutant's unclaimed (incidental) failures seen, which never count")
	f.Int64Var(&o.seed, "seed", 0, "seed of every run (0: from the clock); in the matrix, so it can be replayed")
	f.StringVar(&o.reportDir, "report-dir", "_reports/mutation", "where mutation.json, mutation.md and every run's report go")
	f.IntVar(&o.jobs, "jobs", 3, "runs at a time, each on a cluster of its own (they mostly wait on apiservers and held faults: 3 suit 2 cores, as make conformance's)")
	f.BoolVar(&o.list, "list", false, "list the runs the matrix would make, with their flags, and exit")
	f.BoolVar(&o.rebuild, "rebuild", false, "run nothing: build the matrix again from the runs' reports in --report-dir (after an edit of the reasons table)")
	addBinaryFlags(cmd, &o.bin)
	return cmd
}

// planMutation lists the runs: for every family with a mutant --mutants keeps (and with a
// claimed test --focus keeps), its baseline then those mutants, each with its focus
// (runFocus).
func planMutation(o mutationOptions) ([]matrix.MutationRun, error) {
	if len(o.versions) != 2 {
		return nil, fmt.Errorf("--versions %s: give two, the older and the newer apiserver", strings.Join(o.versions, ","))
	}
	keep := regexp.MustCompile("")
	if o.mutants != "" {
		var err error
		if keep, err = regexp.Compile(o.mutants); err != nil {
			return nil, fmt.Errorf("--mutants: %w", err)
		}
	}
	var focus *regexp.Regexp
	if o.focus != "" {
		var err error
		if focus, err = regexp.Compile(o.focus); err != nil {
			return nil, fmt.Errorf("--focus: %w", err)
		}
	}
	var runs []matrix.MutationRun
	for _, fam := range mutantFamilies {
		var family []matrix.MutationRun
		for _, v := range append([]string{""}, fam.variants()...) {
			if v != "" && !keep.MatchString(fam.name+"/"+v) {
				continue
			}
			r := matrix.MutationRun{Name: fam.name, Family: fam.name, Mutant: v, Profiles: fam.profiles,
				Args: append(append(fam.cluster(o.versions[0], o.versions[1]), "--profiles", strings.Join(fam.profiles, ",")), fam.front(v)...)}
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
			family = append(family, r)
		}
		if len(family) > 1 { // the baseline and a mutant at least
			runs = append(runs, family...)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("--mutants %q and --focus %q leave no mutant with a test to run; see skewcheck mutation --list", o.mutants, o.focus)
	}
	return runs, nil
}

// runFocus is the --focus of run r, and whether it selects every test --focus allows
// ("" then means no focus at all). A baseline runs every test of its family's profiles. A
// mutant runs only the tests it claims (suites.MutantCatches), since only a claimed failure
// counts: the others cannot change the matrix's figures, and a peer proxy mutant's run of
// every profile takes minutes. A mutant that claims nothing, and every mutant with
// --every-test, runs every test, so its unclaimed failures show.
func runFocus(r matrix.MutationRun, o mutationOptions, focus *regexp.Regexp) (string, bool) {
	claimed := suites.MutantCatches[r.Name]
	if r.Baseline() || o.everyTest || len(claimed) == 0 {
		return o.focus, true
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

func printMutationPlan(out io.Writer, runs []matrix.MutationRun) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "RUN\tPROFILES\tCONFORMANCE FLAGS")
	for _, r := range runs {
		name := r.Name
		if r.Baseline() {
			name += " (baseline)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", name, strings.Join(r.Profiles, ","), strings.Join(r.Args, " "))
	}
	w.Flush()
}

// runMutation runs every planned run, o.jobs at a time, each a child skewcheck (ginkgo
// runs once per process, and one run's crash must not end the matrix) on a cluster of its
// own (its own loopback block, namespaces and ports, as make conformance's runs side by
// side), then builds and writes the matrix. The matrix is written again after every run,
// so a killed matrix still has its table.
func runMutation(ctx context.Context, streams IOStreams, o mutationOptions, runs []matrix.MutationRun) error {
	start := time.Now()
	o.seed = framework.SeedOrClock(o.seed)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding skewcheck's own binary to run each mutant: %w", err)
	}
	if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
		return err
	}
	m := &matrix.Mutation{Date: start, Versions: o.versions, Seed: o.seed, Focus: o.focus, EveryTest: o.everyTest, Runs: runs}
	streams.ErrOut = &lineWriter{w: streams.ErrOut} // the runs' lines, whole, one at a time
	var (
		mu       sync.Mutex // guards m and writeErr
		writeErr error
		wg       sync.WaitGroup
		slots    = make(chan struct{}, o.jobs)
	)
	for i := range m.Runs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		mu.Lock()
		r := m.Runs[i]
		mu.Unlock()
		fmt.Fprintf(streams.ErrOut, "== mutation: run %d of %d: %s\n", i+1, len(m.Runs), r.Name)
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			mutantRun(ctx, streams, o, self, &r)
			mu.Lock()
			defer mu.Unlock()
			m.Runs[i] = r
			m.Duration = time.Since(start).Seconds()
			if err := writeMutation(o.reportDir, m); err != nil && writeErr == nil {
				writeErr = err
			}
		}()
	}
	wg.Wait()
	if writeErr != nil {
		return writeErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return concludeMutation(streams.Out, o.reportDir, m)
}

// lineWriter passes each Write on whole while writers of several goroutines share it.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// mutantRun runs r as a child `skewcheck conformance` and records its report, or why it
// left none.
func mutantRun(ctx context.Context, streams IOStreams, o mutationOptions, self string, r *matrix.MutationRun) {
	began := time.Now()
	dir := filepath.Join(o.reportDir, r.Dir)
	os.RemoveAll(dir) // a report left by an earlier matrix must not stand in for this run's
	args := append([]string{"conformance"}, r.Args...)
	args = append(args, "--seed", strconv.FormatInt(o.seed, 10), "--report-dir", dir)
	// The child fails whenever a test does, as a mutant's run is meant to: only a
	// missing report is an error of the run.
	_, runErr := campaign.RunChild(ctx, streams.ErrOut, self, "["+r.Name+"] ", nil, append(args, campaign.ChildBinaryFlags(o.bin)...))
	r.Seconds = time.Since(began).Seconds()
	if ctx.Err() != nil {
		// An interrupted run's report has its tests failed as interrupted: no evidence.
		r.Error = "interrupted"
	} else if c, err := report.Read(filepath.Join(dir, report.JSONFile)); err == nil {
		r.Report = c
	} else {
		r.Error = fmt.Sprintf("%v; %v", runErr, err)
	}
}

// concludeMutation prints the closing line and fails on the matrix's problems.
func concludeMutation(out io.Writer, dir string, m *matrix.Mutation) error {
	fmt.Fprintln(out, m.Summary())
	fmt.Fprintln(out, "matrix:", filepath.Join(dir, matrix.MutationMarkdownFile))
	if p := m.Problems(); len(p) > 0 {
		return fmt.Errorf("the mutation matrix has %d problems:\n  %s", len(p), strings.Join(p, "\n  "))
	}
	return nil
}

// rebuildMutation builds the matrix again from the reports a run of it left, keeping the
// date, seed and times its mutation.json recorded.
func rebuildMutation(streams IOStreams, o mutationOptions, runs []matrix.MutationRun) error {
	m := &matrix.Mutation{Date: time.Now(), Versions: o.versions, Focus: o.focus}
	if b, err := os.ReadFile(filepath.Join(o.reportDir, matrix.MutationJSONFile)); err == nil {
		if err := json.Unmarshal(b, m); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(o.reportDir, matrix.MutationJSONFile), err)
		}
	}
	seconds := map[string]float64{}
	for _, r := range m.Runs {
		seconds[r.Name] = r.Seconds
	}
	m.Runs = runs
	for i := range m.Runs {
		r := &m.Runs[i]
		r.Seconds = seconds[r.Name]
		c, err := report.Read(filepath.Join(o.reportDir, r.Dir, report.JSONFile))
		if err != nil {
			r.Error = fmt.Sprintf("no report to rebuild from: %v", err)
			continue
		}
		r.Report = c
	}
	if err := writeMutation(o.reportDir, m); err != nil {
		return err
	}
	return concludeMutation(streams.Out, o.reportDir, m)
}

// writeMutation builds the matrix from the runs so far and writes it.
func writeMutation(dir string, m *matrix.Mutation) error {
	m.Build(mutationTests(m.Runs), suites.MutationReasons, suites.MutantCatches)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, matrix.MutationJSONFile), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, matrix.MutationMarkdownFile), []byte(m.Markdown()), 0o644)
}

// mutationTests are the matrix's rows: every test of the profiles the runs cover.
func mutationTests(runs []matrix.MutationRun) []matrix.MutationTest {
	var profiles []string
	for _, r := range runs {
		for _, p := range r.Profiles {
			if !slices.Contains(profiles, p) {
				profiles = append(profiles, p)
			}
		}
	}
	tests, _ := framework.Select(suites.All(), profiles) // the families name profiles that exist (TestMutantFamilies)
	var out []matrix.MutationTest
	for _, t := range tests {
		out = append(out, matrix.MutationTest{ID: t.ID, Profile: t.Profile, Description: t.Description})
	}
	return out
}
