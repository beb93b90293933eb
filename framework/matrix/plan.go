package matrix

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// What a night's job runs.
const (
	JobConformance = "conformance" // the profiles against one pair, on three servers
	JobUpgrade     = "upgrade"     // one pair's rolling upgrade and its rollback
	JobMutation    = "mutation"    // one family of the mutation matrix, on the newest pair
)

// Job is one piece of a night that runs on one machine: a pair's conformance run, its
// rolling upgrade, or a family of the mutation matrix. Projects of this kind fan a night
// out over their CI's own matrix (Prow periodics, GitHub Actions jobs); ginkgo has no
// cross-machine sharding, so the plan splits the night itself.
type Job struct {
	// ID names the job in every plan of the same versions: "v1.35.4-v1.36.3/conformance",
	// "v1.35.4-v1.36.3/upgrade", "mutation/peerproxy".
	ID     string `json:"id"`
	What   string `json:"what"`
	From   string `json:"from"`
	To     string `json:"to"`
	Family string `json:"family,omitempty"` // JobMutation's
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
// at a time (a family not listed: mutationEstimate).
const (
	conformanceEstimate = 12 * 60
	upgradeEstimate     = 8 * 60
	mutationEstimate    = 30 * 60
)

var familyEstimates = map[string]float64{"peerproxy": 75 * 60, "gateway": 26 * 60, "ipmode": 6 * 60}

// NewPlan is the night of versions (oldest first): each adjacent pair's conformance run and
// upgrade, then, with families, one mutation job per family on the newest pair. Durations
// come from previous (the jobs an earlier night ran, by ID) where it has them.
func NewPlan(versions, families []string, previous []JobRun) (Plan, error) {
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
	}
	from, to := versions[len(versions)-2], versions[len(versions)-1]
	for _, f := range families {
		est, ok := familyEstimates[f]
		if !ok {
			est = mutationEstimate
		}
		add(Job{ID: JobMutation + "/" + f, What: JobMutation, From: from, To: to, Family: f}, est)
	}
	return p, nil
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
