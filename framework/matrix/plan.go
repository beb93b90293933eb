package matrix

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// What a night's job runs.
const (
	JobConformance = "conformance" // the profiles against one pair, on three servers
	JobUpgrade     = "upgrade"     // one pair's rolling upgrade and its rollback
	JobMutation    = "mutation"    // one family of the mutation matrix, on the newest pair
	// JobProvider is the default profiles against the newest pair on another provider
	// (kind, containers): what users run, beside the local processes of the other jobs.
	JobProvider = "provider"
	// JobEmulation is one pair's emulated-vs-real comparison (skewcheck emulation).
	JobEmulation = "emulation"
	// JobSoak is one pair's soak profiles: tests that wait out an upstream grace period,
	// minutes each, which the conformance job leaves out.
	JobSoak = "soak"
	// JobRanges is one run at a far end of the version ranges (a RangeEnd), which the
	// night's adjacent pairs never reach: one release twice, whose tests must skip or pass
	// as their ranges say.
	JobRanges = "ranges"
)

// Job is one piece of a night that runs on one machine: a pair's conformance run, its
// rolling upgrade, or a family of the mutation matrix. Projects of this kind fan a night
// out over their CI's own matrix (Prow periodics, GitHub Actions jobs); ginkgo has no
// cross-machine sharding, so the plan splits the night itself.
type Job struct {
	// ID names the job in every plan of the same versions: "v1.35.4-v1.36.3/conformance",
	// "v1.35.4-v1.36.3/upgrade", "mutation/peerproxy".
	ID       string `json:"id"`
	What     string `json:"what"`
	From     string `json:"from"`
	To       string `json:"to"`
	Family   string `json:"family,omitempty"`   // JobMutation's
	Provider string `json:"provider,omitempty"` // JobProvider's
	Profiles string `json:"profiles,omitempty"` // JobRanges': comma-separated
	// Seconds is the job's duration the last time it ran (Measured), else an estimate.
	Seconds  float64 `json:"seconds"`
	Measured bool    `json:"measured"`
}

// JobRun is a job as a night ran it: where, and how long it took.
type JobRun struct {
	ID      string  `json:"id"`
	Machine string  `json:"machine"`
	Shard   string  `json:"shard"` // "i/n"
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"` // why the job could not run at all
}

// Plan is a night's jobs, in the order one machine runs them.
type Plan struct {
	Versions []string `json:"versions"`
	Jobs     []Job    `json:"jobs"`
}

// Estimates of a job's duration on this project's 2-core machine, for the jobs no earlier
// night measured (docs/measurements.md): a pair's four peer profiles on three servers, a
// three-server upgrade and rollback, and each family of the mutation matrix with 3 runs
// at a time, each mutant on the tests it claims (2026-11-28, seed 7: the peer proxy's 26
// runs took 47 min of run time, the longest 13 min; the gateway's 28, 11 min; ipmode's 5,
// 2 min), a family not listed: mutationEstimate.
const (
	conformanceEstimate = 12 * 60
	upgradeEstimate     = 8 * 60
	mutationEstimate    = 10 * 60
	providerEstimate    = 6 * 60
	emulationEstimate   = 20 * 60
	soakEstimate        = 9 * 60
	// A far end's run: most of its tests skip by range in seconds, 1.32's pass in about 4
	// minutes (2026-11-23, make ranges).
	rangesEstimate = 3 * 60
)

// The peer proxy's baseline runs the soak profile too (2026-11-29): about 6 minutes more.
var familyEstimates = map[string]float64{"peerproxy": 23 * 60, "gateway": 5 * 60, "ipmode": 2 * 60}

// PlanOptions are what a night holds beyond each pair's conformance run and upgrade.
type PlanOptions struct {
	// Families of the mutation matrix, each a job on the newest pair.
	Families []string
	// Providers other than local the newest pair's default profiles run on, each a job.
	Providers []string
	// Emulation adds each pair's emulated-vs-real comparison, where the newer can emulate
	// the older (EmulationPossible).
	Emulation bool
	// EmulationPossible says whether newer can emulate older (nil: every pair can).
	EmulationPossible func(older, newer string) bool
	// Soak says whether a pair runs the soak profiles (a job of its own): only where
	// their tests apply to both versions (nil: no pair does).
	Soak func(older, newer string) bool
	// RangeEnds are the version ranges' far ends, each a job (after the pairs').
	RangeEnds []RangeEnd
}

// RangeEnd is one run at a far end of the version ranges: one release twice (batch/v1 off
// on the first server, for a skew), with the profiles whose ranges begin or change near it.
type RangeEnd struct {
	Name     string // the job's ID after "ranges/", and its report directory's name
	Version  string // a release, vX.Y.Z
	Profiles string // comma-separated
}

// NewPlan is the night of versions (oldest first): each adjacent pair's conformance run and
// upgrade (and, with o.Emulation, its emulated-vs-real comparison; where o.Soak says so,
// its soak profiles), then the newest pair's runs on o.Providers and one mutation job per
// family. Durations come from previous (the jobs an earlier night ran, by ID) where it has
// them.
func NewPlan(versions []string, o PlanOptions, previous []JobRun) (Plan, error) {
	if len(versions) < 2 {
		return Plan{}, fmt.Errorf("a night needs at least two versions, got %v", versions)
	}
	measured := map[string]float64{}
	for _, r := range previous {
		if r.Error == "" && r.Seconds > 0 {
			measured[r.ID] = r.Seconds
		}
	}
	p := Plan{Versions: versions}
	add := func(j Job, estimate float64) {
		j.Seconds, j.Measured = estimate, false
		if s, ok := measured[j.ID]; ok {
			j.Seconds, j.Measured = s, true
		}
		p.Jobs = append(p.Jobs, j)
	}
	for i := 0; i+1 < len(versions); i++ {
		from, to := versions[i], versions[i+1]
		pair := from + "-" + to
		add(Job{ID: pair + "/" + JobConformance, What: JobConformance, From: from, To: to}, conformanceEstimate)
		add(Job{ID: pair + "/" + JobUpgrade, What: JobUpgrade, From: from, To: to}, upgradeEstimate)
		if o.Emulation && (o.EmulationPossible == nil || o.EmulationPossible(from, to)) {
			add(Job{ID: pair + "/" + JobEmulation, What: JobEmulation, From: from, To: to}, emulationEstimate)
		}
		if o.Soak != nil && o.Soak(from, to) {
			add(Job{ID: pair + "/" + JobSoak, What: JobSoak, From: from, To: to}, soakEstimate)
		}
	}
	for _, e := range o.RangeEnds {
		add(Job{ID: JobRanges + "/" + e.Name, What: JobRanges, From: e.Version, To: e.Version, Profiles: e.Profiles}, rangesEstimate)
	}
	from, to := versions[len(versions)-2], versions[len(versions)-1]
	for _, p := range o.Providers {
		add(Job{ID: from + "-" + to + "/conformance-" + p, What: JobProvider, From: from, To: to, Provider: p}, providerEstimate)
	}
	for _, f := range o.Families {
		est, ok := familyEstimates[f]
		if !ok {
			est = mutationEstimate
		}
		add(Job{ID: JobMutation + "/" + f, What: JobMutation, From: from, To: to, Family: f}, est)
	}
	return p, nil
}

// Validate checks a plan read from a file (nightly --plan-file) before any job runs: every
// job of a known kind, its ID unique, its versions among the plan's (a far end's, one
// release, is outside them by design). A plan NewPlan made passes.
func (p Plan) Validate() error {
	kinds := []string{JobConformance, JobUpgrade, JobMutation, JobProvider, JobEmulation, JobSoak, JobRanges}
	seen := map[string]bool{}
	for _, j := range p.Jobs {
		switch {
		case !slices.Contains(kinds, j.What):
			return fmt.Errorf("job %q is of kind %q; the kinds are %s", j.ID, j.What, strings.Join(kinds, ", "))
		case seen[j.ID]:
			return fmt.Errorf("job %q is listed twice: every job runs in exactly one shard", j.ID)
		case j.What == JobRanges && (j.From != j.To || !semver.IsValid(j.From) || semver.Prerelease(j.From) != "" || strings.Count(j.From, ".") != 2 || j.Profiles == ""):
			return fmt.Errorf("job %q runs %s and %s with profiles %q: a far end's run is one release (vX.Y.Z) twice, with its profiles", j.ID, j.From, j.To, j.Profiles)
		case j.What != JobRanges && (!slices.Contains(p.Versions, j.From) || !slices.Contains(p.Versions, j.To)):
			return fmt.Errorf("job %q runs %s and %s, which the plan's versions %v do not both hold", j.ID, j.From, j.To, p.Versions)
		}
		seen[j.ID] = true
	}
	return nil
}

// Shard is the jobs of shard i of n (1-based), in plan order. Jobs go longest first, each
// to the shard with the least work so far (the lowest-numbered on a tie; equal durations
// by ID), so every job is in exactly one shard, the split depends on the plan alone (the
// same on every machine), and the longest shard is at most the mean plus the longest job.
func (p Plan) Shard(i, n int) ([]Job, error) {
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("shard %d/%d: want i/n with 1 <= i <= n", i, n)
	}
	order := slices.Clone(p.Jobs)
	slices.SortStableFunc(order, func(a, b Job) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), strings.Compare(a.ID, b.ID))
	})
	load := make([]float64, n)
	of := map[string]int{}
	for _, j := range order {
		least := 0
		for s := range load {
			if load[s] < load[least] {
				least = s
			}
		}
		load[least] += j.Seconds
		of[j.ID] = least
	}
	var out []Job
	for _, j := range p.Jobs {
		if of[j.ID] == i-1 {
			out = append(out, j)
		}
	}
	return out, nil
}

// ParseShard reads "i/n".
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n, the i-th of n shards (1 <= i <= n), e.g. --shard 2/4", s)
	}
	return i, n, nil
}
