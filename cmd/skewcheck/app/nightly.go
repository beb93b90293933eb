//go:build !incluster

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
	"github.com/skewcheck/skewcheck/suites"
)

// nightlyOptions are what one night runs for every adjacent pair of versions.
type nightlyOptions struct {
	versions  []string
	profiles  []string
	servers   int
	fault     string
	seed      int64
	reportDir string
	mutation  bool
	providers []string // other providers the newest pair runs on
	emulation bool
	soak      bool
	ranges    bool   // the version ranges' far ends (suites.RangeEnds), a job each
	jobs      string // only the plan's jobs whose ID matches this
	plan      bool   // print the plan and exit
	shard     string // "i/n"
	previous  string // an earlier night's nightly.json, for the plan's durations
	planFile  string // a plan --plan printed, run as it is
	bin       binaries.Options
}

func newNightlyCommand(streams IOStreams) *cobra.Command {
	var o nightlyOptions
	cmd := &cobra.Command{
		Use:   "nightly",
		Short: "The version matrix: for every adjacent pair, a rolling upgrade and its rollback, and the conformance profiles, with an index.html",
		Long: `Builds (or finds cached) the kube-apiserver of every --versions, then for each adjacent pair
(v1.33 + v1.34, v1.34 + v1.35, ...) runs, each as its own skewcheck process:
  - conformance --profiles against a local cluster of the pair on three servers, as an HA
    control plane mid-upgrade has them: the older with batch/v1 off (a resource with a
    subresource that two peers serve), the newer twice with autoscaling/v2 off;
  - upgrade --path older,newer,older with --servers and --fault, under a seeded load: the
    rolling upgrade, then the rolling downgrade back (the rollback), on one cluster, so the
    older version reads back what the newer one wrote;
  - with --soak, where its tests apply to both versions, conformance --profiles soak on
    the same three servers: the tests that wait out an upstream grace period (minutes).
With --ranges, each far end of the version ranges (1.27, 1.28, 1.29, 1.32, 1.35 alone),
which adjacent pairs never reach: conformance of one release twice with the profiles that
must skip or pass there (make ranges runs these alone, with --jobs '^ranges/'); a run
that contradicts a range fails its job, a test skipped by range does not.
Then, with --mutation, the mutation matrix (skewcheck mutation) on the newest pair: every
flawed reference against its profiles, under --report-dir/mutation/.
A night is a plan of jobs (each pair's conformance, upgrade, soak and, with --emulation, its
emulated-vs-real comparison; the newest pair's default profiles on each of --providers, kind's
node images built first; each family of the mutation matrix): --plan prints it as JSON, with each job's duration from --previous (an
earlier night's nightly.json) or an estimate, and --shard i/n runs the i-th of n shares of
it, split longest-first so that every job is in exactly one shard, the same on every
machine; a CI matrix runs one shard per machine, each with its own --report-dir, and every
shard the same --plan-file (with n > 1 it is required). A shard with no job still writes
its nightly.json.
Every report goes under --report-dir/<from>-<to>/, and index.html there has one row per pair:
the result of each profile, the upgrade's and the downgrade's verdicts and their timeline, links to every report, and
the seed, and the matrix's closing line. Exit 1 when anything failed; the last line is the
summary.`,
		Example: "  skewcheck nightly --versions 1.33,1.34,1.35,1.36,1.37\n  skewcheck nightly --versions v1.35.4,v1.36.3 --profiles mvp --seed 42\n" +
			"  skewcheck nightly --plan --previous last/nightly.json > plan.json\n  skewcheck nightly --plan-file plan.json --shard 2/4 --seed 42 --report-dir _reports/nightly-2",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runNightly(ctx, streams, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.versions, "versions", []string{"1.33", "1.34", "1.35", "1.36", "1.37"}, "the matrix, oldest first (a minor means its newest patch release)")
	f.StringSliceVar(&o.profiles, "profiles", suites.PeerProfiles, "conformance profiles run against every pair (default: every profile about what apiservers do for one another)")
	f.IntVar(&o.servers, "servers", 3, "apiservers of each rolling upgrade")
	f.StringVar(&o.fault, "fault", "crash", "process fault (crash, stop, freeze) hitting the next server during every upgrade step; empty for none")
	f.Int64Var(&o.seed, "seed", 0, "seed of every run (0: from the clock); in the index, so a night can be replayed")
	f.StringVar(&o.reportDir, "report-dir", "_reports/nightly", "where every report and index.html go")
	f.BoolVar(&o.mutation, "mutation", true, "after the pairs, run the mutation matrix on the newest pair, a job per family (the peer proxy's alone over an hour): every test must fail against some flawed reference")
	f.StringSliceVar(&o.providers, "providers", []string{"kind", "containers"}, "other providers the newest pair's default profiles run on, each a job (empty: none); they need Docker")
	f.BoolVar(&o.emulation, "emulation", true, "compare each pair's real skew with its emulation (skewcheck emulation), where the newer can emulate the older (1.31 or later)")
	f.BoolVar(&o.soak, "soak", true, "run each pair's soak profiles (tests that wait out an upstream grace period, minutes each) as a job of their own, where they apply to both versions")
	f.BoolVar(&o.ranges, "ranges", true, "run each far end of the version ranges (one release twice, older releases the pairs never reach, their kube-apiservers built first) as a job of its own")
	f.StringVar(&o.jobs, "jobs", "", "run only the jobs of the plan (or of this shard's share) whose ID matches this regular expression: one job of a night again, or the ranges' ends alone ('^ranges/')")
	f.BoolVar(&o.plan, "plan", false, "print the night's jobs as JSON (id, what, pair, family, seconds, measured) and exit")
	f.StringVar(&o.shard, "shard", "1/1", "run the i-th of n shares of the plan (i/n): every job is in exactly one shard; with n > 1, give every shard the same --plan-file")
	f.StringVar(&o.previous, "previous", "", "an earlier night's nightly.json: the plan's durations come from its jobs")
	f.StringVar(&o.planFile, "plan-file", "", "run this plan (what --plan printed, its versions and durations) instead of making one: every shard of a night splits the same plan")
	addBinaryFlags(cmd, &o.bin)
	return cmd
}

func runNightly(ctx context.Context, streams IOStreams, o nightlyOptions) error {
	start := time.Now()
	shardI, shardN, err := checkNightlyFlags(o)
	if err != nil {
		return err
	}
	var previous []matrix.JobRun
	if o.previous != "" {
		if previous, err = readPreviousJobs(o.previous); err != nil {
			return err
		}
	}
	o.seed = framework.SeedOrClock(o.seed)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding skewcheck's own binary to run each pair: %w", err)
	}
	plan, err := nightlyPlan(ctx, o, previous)
	if err != nil {
		return err
	}
	resolved := plan.Versions
	if o.plan {
		enc := json.NewEncoder(streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(plan)
	}
	jobs, err := plan.Shard(shardI, shardN)
	if err != nil {
		return err
	}
	if o.jobs != "" {
		if jobs, err = onlyJobs(jobs, o.jobs, o.shard); err != nil {
			return err
		}
	}
	// Every binary the shard needs first, one at a time: a build already uses both cores,
	// and a failed build should end the night before any cluster starts.
	o.bin.Progress = streams.ErrOut
	needed := neededVersions(jobs)
	for i, v := range needed {
		fmt.Fprintf(streams.ErrOut, "== nightly: kube-apiserver %s (%d of %d)\n", v, i+1, len(needed))
		if _, err := binaries.Ensure(ctx, binaries.KubeAPIServer, v, o.bin); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
		return err
	}
	machine, _ := os.Hostname()
	n := &matrix.Nightly{Date: start, Versions: resolved, Seed: o.seed, Shard: o.shard, Plan: &plan, Machine: machine}
	if len(jobs) == 0 {
		fmt.Fprintf(streams.ErrOut, "== nightly: shard %s has no job of the plan's %d (more shards than jobs): its night is empty\n", o.shard, len(plan.Jobs))
	}
	// The night is written before its first job too: a shard that got no job leaves a
	// night of none, which a merge reads as a shard that did its share, not as one that
	// left nothing (whose jobs would be missing); one killed in its first job leaves its
	// shard, seed and machine.
	if err := writeNightly(o.reportDir, n); err != nil {
		return err
	}
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(streams.ErrOut, "== nightly: job %d of %d of shard %s: %s\n", i+1, len(jobs), o.shard, j.ID)
		began := time.Now()
		runJob(ctx, streams, self, o, n, j)
		run := matrix.JobRun{ID: j.ID, Machine: machine, Shard: o.shard, Seconds: time.Since(began).Seconds()}
		if ctx.Err() != nil {
			// Cut short: its time is no measure for the next night's plan (NewPlan skips it).
			run.Error = "interrupted"
		}
		n.Jobs = append(n.Jobs, run)
		n.Duration = time.Since(start).Seconds()
		if err := writeNightly(o.reportDir, n); err != nil { // after every job: a killed night still has its page
			return err
		}
	}
	fmt.Fprintln(streams.Out, n.Summary())
	fmt.Fprintln(streams.Out, "index:", filepath.Join(o.reportDir, "index.html"))
	if f := n.Failures(); len(f) > 0 {
		return fmt.Errorf("the nightly run failed (replay a pair with --seed %d):\n  %s", o.seed, strings.Join(f, "\n  "))
	}
	return ctx.Err()
}

// checkNightlyFlags judges what needs no plan, binary or cluster to judge, so a mistake
// is refused in a second, naming the flags and the fix, before anything is resolved,
// built or started; it returns the shard, i of n.
func checkNightlyFlags(o nightlyOptions) (i, n int, err error) {
	if len(o.versions) < 2 {
		return 0, 0, fmt.Errorf("--versions %s: a matrix needs at least two versions", strings.Join(o.versions, ","))
	}
	if i, n, err = matrix.ParseShard(o.shard); err != nil {
		return 0, 0, err
	}
	// A shard without --plan-file makes a plan of its own: versions resolved when it
	// starts (a patch released in between changes them) and durations from its own
	// --previous. Two machines could then split two plans, leaving a job to no shard or
	// to two; a merge refuses shards of different plans, after the night has run. --plan
	// alone runs no shard.
	if n > 1 && o.planFile == "" && !o.plan {
		return 0, 0, fmt.Errorf("--shard %s without --plan-file: every shard of a night must split the same plan, and each would make its own: run `skewcheck nightly --plan > plan.json` once and pass --plan-file plan.json to every shard (--shard 1/1, one machine, needs none)", o.shard)
	}
	if _, err := regexp.Compile(o.jobs); err != nil {
		return 0, 0, fmt.Errorf("--jobs %q is no regular expression: %w", o.jobs, err)
	}
	return i, n, nil
}

// onlyJobs are the jobs whose ID matches expr (checked by checkNightlyFlags); none is a
// mistake, refused with the IDs there are.
func onlyJobs(jobs []matrix.Job, expr, shard string) ([]matrix.Job, error) {
	re := regexp.MustCompile(expr)
	var ids []string
	var kept []matrix.Job
	for _, j := range jobs {
		ids = append(ids, j.ID)
		if re.MatchString(j.ID) {
			kept = append(kept, j)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("--jobs %q matches none of the %d jobs of shard %s: %s", expr, len(jobs), shard, strings.Join(ids, ", "))
	}
	return kept, nil
}

// nightlyPlan is the plan in --plan-file, or a new one of --versions, each resolved to a
// release (a minor to its newest patch).
func nightlyPlan(ctx context.Context, o nightlyOptions, previous []matrix.JobRun) (matrix.Plan, error) {
	if o.planFile == "" {
		var versions []string
		for _, v := range o.versions {
			r, err := binaries.Resolve(ctx, v)
			if err != nil {
				return matrix.Plan{}, err
			}
			versions = append(versions, r)
		}
		po := matrix.PlanOptions{Providers: o.providers, Emulation: o.emulation, EmulationPossible: func(older, newer string) bool {
			return local.CheckEmulation(newer, strings.TrimPrefix(semver.MajorMinor(older), "v")) == nil
		}}
		if o.mutation {
			po.Families = campaign.MutationFamilies()
		}
		if o.soak {
			po.Soak = soakApplies
		}
		if o.ranges {
			po.RangeEnds = suites.RangeEnds
		}
		return matrix.NewPlan(versions, po, previous)
	}
	var plan matrix.Plan
	b, err := os.ReadFile(o.planFile)
	if err == nil {
		err = json.Unmarshal(b, &plan)
	}
	if err == nil && len(plan.Jobs) == 0 {
		err = fmt.Errorf("it has no jobs")
	}
	if err == nil {
		err = plan.Validate()
	}
	if err != nil {
		return plan, fmt.Errorf("--plan-file %s: %w: give the JSON nightly --plan printed", o.planFile, err)
	}
	return plan, nil
}

// soakApplies says whether some test of the soak profiles applies to both versions: a
// pair older than every such test's range would only skip them.
func soakApplies(older, newer string) bool {
	tests, _ := framework.Select(suites.All(), suites.SoakProfiles)
	return slices.ContainsFunc(tests, func(t framework.Test) bool {
		return framework.InRange(older, t.Since, t.Until) && framework.InRange(newer, t.Since, t.Until)
	})
}

// readPreviousJobs reads the jobs an earlier night ran from its nightly.json.
func readPreviousJobs(path string) ([]matrix.JobRun, error) {
	n, err := readNightly(path)
	if err != nil {
		return nil, fmt.Errorf("--previous: %w: give the nightly.json an earlier night wrote, or leave --previous out for the estimates", err)
	}
	return n.Jobs, nil
}

// neededVersions are the versions jobs run, each once, in the order the jobs first name
// them: the pairs' versions, then the ranges' far ends.
func neededVersions(jobs []matrix.Job) []string {
	var out []string
	for _, j := range jobs {
		for _, v := range []string{j.From, j.To} {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// runJob runs one job of the plan and records it in n: a pair's conformance run or upgrade
// in the pair's row (made when its first job runs), a mutation family in n.Mutations.
func runJob(ctx context.Context, streams IOStreams, self string, o nightlyOptions, n *matrix.Nightly, j matrix.Job) {
	switch j.What {
	case matrix.JobMutation:
		n.Mutations = append(n.Mutations, runNightlyMutation(ctx, streams, self, o, j))
		return
	case matrix.JobProvider, matrix.JobEmulation, matrix.JobSoak, matrix.JobRanges:
		n.Others = append(n.Others, runNightlyOther(ctx, streams, self, o, j))
		return
	}
	p := n.PairRow(j.From, j.To)
	switch j.What {
	case matrix.JobConformance:
		runPairConformance(ctx, streams, self, o, p)
	case matrix.JobUpgrade:
		runPairUpgrade(ctx, streams, self, o, p)
	}
}

// runPairConformance runs the conformance profiles against one pair as a child skewcheck,
// so one pair's crash cannot take the night down with it.
func runPairConformance(ctx context.Context, streams IOStreams, self string, o nightlyOptions, p *matrix.NightlyPair) {
	began := time.Now()
	name := p.From + "-" + p.To
	fmt.Fprintf(streams.ErrOut, "== nightly: %s + %s: conformance %s\n", p.From, p.To, strings.Join(o.profiles, ","))
	cdir := filepath.Join(o.reportDir, p.ConformanceDir)
	args := append(append([]string{"conformance"}, campaign.HighlyAvailable(p.From, p.To)...), "--profiles", strings.Join(o.profiles, ","),
		"--seed", strconv.FormatInt(o.seed, 10), "--report-dir", cdir)
	defect, err := campaign.RunChild(ctx, streams.ErrOut, self, "["+name+" conformance] ", []string{p.From, p.To}, append(args, campaign.ChildBinaryFlags(o.bin)...))
	p.ConformanceElsewhere = false
	if c, rerr := report.Read(filepath.Join(cdir, report.JSONFile)); rerr == nil {
		p.Conformance = c
	} else {
		p.ConformanceError = fmt.Sprintf("%v; %v", err, rerr)
		p.ConformanceKnownDefect = defect
	}
	p.Seconds += time.Since(began).Seconds()
}

// runPairUpgrade runs one pair's rolling upgrade and downgrade as a child skewcheck.
func runPairUpgrade(ctx context.Context, streams IOStreams, self string, o nightlyOptions, p *matrix.NightlyPair) {
	began := time.Now()
	name := p.From + "-" + p.To
	fmt.Fprintf(streams.ErrOut, "== nightly: %s -> %s -> %s: rolling upgrade and downgrade of %d servers\n", p.From, p.To, p.From, o.servers)
	p.Upgrade = matrix.UpgradeRun{Dir: p.Upgrade.Dir, Servers: o.servers, Fault: o.fault}
	udir := filepath.Join(o.reportDir, p.Upgrade.Dir)
	os.Remove(filepath.Join(udir, "upgrade.json")) // an earlier night's run must not stand in for this one's
	args := []string{"upgrade", "--path", strings.Join([]string{p.From, p.To, p.From}, ","), "--servers", strconv.Itoa(o.servers),
		"--seed", strconv.FormatInt(o.seed, 10), "--report-dir", udir}
	if o.fault != "" {
		args = append(args, "--fault", o.fault)
	}
	defect, err := campaign.RunChild(ctx, streams.ErrOut, self, "["+name+" upgrade] ", []string{p.From, p.To}, append(args, campaign.ChildBinaryFlags(o.bin)...))
	p.Upgrade = readUpgrade(p.Upgrade, udir, err)
	if !p.Upgrade.Ran {
		p.Upgrade.KnownDefect = defect
	}
	p.Seconds += time.Since(began).Seconds()
}

// runNightlyOther runs the newest pair's default profiles on another provider, a pair's
// emulated-vs-real comparison, its soak profiles or a far end of the ranges, as a child
// skewcheck: its exit code is the verdict (0 passed; 1 failed; 2 could not check
// everything, which a night counts as a failure), but a far end's (rangesVerdict).
func runNightlyOther(ctx context.Context, streams IOStreams, self string, o nightlyOptions, j matrix.Job) matrix.NightlyRun {
	r := matrix.NightlyRun{ID: j.ID, What: j.What, From: j.From, To: j.To, Dir: j.ID}
	dir := filepath.Join(o.reportDir, r.Dir)
	seed := strconv.FormatInt(o.seed, 10)
	var args []string
	switch j.What {
	case matrix.JobEmulation:
		args = []string{"emulation", "--versions", j.From + "," + j.To, "--seed", seed, "--report-dir", dir}
	case matrix.JobProvider:
		args = []string{"conformance", "--provider", j.Provider, "--versions", j.From + "," + j.To, "--seed", seed, "--report-dir", dir}
	case matrix.JobSoak:
		args = append(append([]string{"conformance"}, campaign.HighlyAvailable(j.From, j.To)...),
			"--profiles", strings.Join(suites.SoakProfiles, ","), "--seed", seed, "--report-dir", dir)
	case matrix.JobRanges:
		args = rangeEndArgs(j, seed, dir)
	}
	fmt.Fprintf(streams.ErrOut, "== nightly: %s\n", j.ID)
	if p, err := clusters.Lookup(j.Provider); err == nil && p.Supports(clusters.NodeImages) {
		// node images (kind's) are built here, never pulled (cached: seconds when they are)
		for _, v := range []string{j.From, j.To} {
			if _, err := campaign.RunChild(ctx, streams.ErrOut, self, "["+j.ID+" node image "+v+"] ", nil, append([]string{"images", "node", "--version", v}, campaign.ChildBinaryFlags(o.bin)...)); err != nil {
				r.Error = "building the kind node image of " + v + ": " + err.Error()
				return r
			}
		}
	}
	defect, err := campaign.RunChild(ctx, streams.ErrOut, self, "["+j.ID+"] ", []string{j.From, j.To}, append(args, campaign.ChildBinaryFlags(o.bin)...))
	r.Passed = err == nil
	if err != nil {
		r.Error = err.Error()
		if defect != "" {
			r.Error += " (" + defect + ")"
		}
	}
	c, rerr := report.Read(filepath.Join(dir, report.JSONFile))
	if rerr == nil {
		r.Summary = runSummary(c)
	}
	if j.What == matrix.JobRanges {
		r.Passed, r.Error = rangesVerdict(c, rerr, err)
	}
	return r
}

// runSummary is a run's counts for its line on the page, naming the tests that passed only
// as a known upstream deviation: a soak job's SOAK-001 on 1.36, say, which the morning page
// must show as upstream's catalogued defect, not as a plain pass.
func runSummary(c *report.Conformance) string {
	s := report.ClosingLine(c)
	var deviated []string
	for _, t := range c.Tests {
		if t.KnownDeviation != "" {
			deviated = append(deviated, t.ID)
		}
	}
	if len(deviated) > 0 {
		s += fmt.Sprintf("; %d only as a known upstream deviation: %s", len(deviated), strings.Join(deviated, ", "))
	}
	return s
}

// runNightlyMutation runs one family of the mutation matrix (its baseline and mutants) on
// the job's pair as a child skewcheck, and reads back what the index shows of it.
func runNightlyMutation(ctx context.Context, streams IOStreams, self string, o nightlyOptions, j matrix.Job) matrix.NightlyMutation {
	fmt.Fprintf(streams.ErrOut, "== nightly: %s + %s: mutation matrix, family %s\n", j.From, j.To, j.Family)
	m := matrix.NightlyMutation{Family: j.Family, Dir: filepath.Join("mutation", j.Family)}
	dir := filepath.Join(o.reportDir, m.Dir)
	os.Remove(filepath.Join(dir, matrix.MutationJSONFile)) // an earlier night's matrix must not stand in for this one's
	_, err := campaign.RunChild(ctx, streams.ErrOut, self, "[mutation "+j.Family+"] ", nil, append([]string{"mutation", "--versions", j.From + "," + j.To,
		"--mutants", "^" + regexp.QuoteMeta(j.Family) + "/", "--seed", strconv.FormatInt(o.seed, 10), "--report-dir", dir}, campaign.ChildBinaryFlags(o.bin)...))

	b, rerr := os.ReadFile(filepath.Join(dir, matrix.MutationJSONFile))
	var matrix matrix.Mutation
	if rerr == nil {
		rerr = json.Unmarshal(b, &matrix)
	}
	if rerr != nil {
		m.Error = fmt.Sprintf("%v; %v", err, rerr)
		return m
	}
	m.Summary, m.Problems, m.BaselineFailures = matrix.Summary(), matrix.Problems(), matrix.BaselineFailures()
	return m
}

// readUpgrade fills in what the index shows of a rolling upgrade from its upgrade.json.
func readUpgrade(u matrix.UpgradeRun, dir string, runErr error) matrix.UpgradeRun {
	b, err := os.ReadFile(filepath.Join(dir, "upgrade.json"))
	if err != nil {
		u.Error = fmt.Sprintf("no upgrade.json (%v)", runErr)
		return u
	}
	var r upgrade.Result
	if err := json.Unmarshal(b, &r); err != nil {
		u.Error = fmt.Sprintf("upgrade.json: %v", err)
		return u
	}
	u.Ran, u.Passed, u.Violations, u.Seconds = true, r.Passed(), r.Violations, r.Duration
	for _, h := range r.Hops {
		u.Hops = append(u.Hops, matrix.UpgradeHop{From: h.From, To: h.To, Direction: h.Direction,
			Violations: len(h.Violations), Mixed: h.End - h.Start, Gone: h.Gone})
	}
	if svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg")); err == nil {
		u.Timeline = string(svg)
	}
	return u
}

func writeNightly(dir string, n *matrix.Nightly) error {
	// The night's runs, set against every version range the tests claim: the pairs are
	// adjacent, and the far ends' runs reach beyond them, so a night checks each range
	// from both sides.
	var runs []*report.Conformance
	var named []report.NamedRun
	for _, p := range n.Pairs {
		if p.Conformance != nil {
			runs = append(runs, p.Conformance)
			named = append(named, report.NamedRun{Name: p.From + "-" + p.To, Run: p.Conformance})
		}
	}
	for _, r := range n.Others {
		if r.What != matrix.JobRanges {
			continue
		}
		if c, err := report.Read(filepath.Join(dir, r.Dir, report.JSONFile)); err == nil {
			runs = append(runs, c)
			named = append(named, report.NamedRun{Name: r.ID, Run: c})
		}
	}
	checks := matrix.CheckRanges(suites.All(), runs)
	n.Ranges = matrix.RangesSummary(checks)
	if err := os.WriteFile(filepath.Join(dir, matrix.RangesFile), []byte(matrix.RangesMarkdown(checks)), 0o644); err != nil {
		return err
	}
	// Every pair's and far end's conformance run in one JUnit file, for CI systems that
	// read one (a merge of shards writes the same as one machine).
	junit, err := report.JUnitOf(named)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "junit.xml"), junit, 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "nightly.json"), b, 0o644); err != nil {
		return err
	}
	page, err := n.HTML()
	if err != nil {
		return fmt.Errorf("rendering index.html: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "index.html"), page, 0o644)
}
