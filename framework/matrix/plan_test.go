package matrix

import (
	"slices"
	"strings"
	"testing"
)

var night = []string{"v1.33.13", "v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"}

// A night is every adjacent pair's conformance and upgrade, then a mutation job per family
// on the newest pair; a duration an earlier night measured replaces the estimate.
func TestNewPlan(t *testing.T) {
	p, err := NewPlan(night, PlanOptions{Families: []string{"peerproxy", "gateway", "ipmode", "newfamily"}},
		[]JobRun{{ID: "v1.35.4-v1.36.3/upgrade", Seconds: 321}, {ID: "mutation/gateway", Error: "no binaries"}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range p.Jobs {
		ids = append(ids, j.ID)
	}
	if len(p.Jobs) != 4*2+4 || ids[0] != "v1.33.13-v1.34.4/conformance" || ids[7] != "v1.36.3-v1.37.2/upgrade" || ids[8] != "mutation/peerproxy" {
		t.Fatalf("jobs: %v", ids)
	}
	for _, j := range p.Jobs {
		switch j.ID {
		case "v1.35.4-v1.36.3/upgrade":
			if !j.Measured || j.Seconds != 321 {
				t.Errorf("%s: %v s, measured %v; want the earlier night's 321 s", j.ID, j.Seconds, j.Measured)
			}
		case "mutation/gateway": // the earlier night's run failed: no measurement
			if j.Measured || j.Seconds != familyEstimates["gateway"] {
				t.Errorf("%s: %v s, measured %v; want the estimate", j.ID, j.Seconds, j.Measured)
			}
		case "mutation/newfamily":
			if j.Seconds != mutationEstimate || j.From != "v1.36.3" || j.To != "v1.37.2" {
				t.Errorf("%s: %+v", j.ID, j)
			}
		}
	}
	full, _ := NewPlan(night, PlanOptions{Providers: []string{"kind", "containers"}, Emulation: true,
		EmulationPossible: func(older, _ string) bool { return older != "v1.33.13" },
		Soak:              func(older, _ string) bool { return older >= "v1.35" },
		RangeEnds:         []RangeEnd{{Name: "v1.29.15-ipmode", Version: "v1.29.15", Profiles: "ipmode"}}}, nil)
	var more []string
	for _, j := range full.Jobs {
		if j.What == JobProvider || j.What == JobEmulation || j.What == JobSoak || j.What == JobRanges {
			more = append(more, j.ID)
		}
	}
	if want := []string{"v1.34.4-v1.35.4/emulation", "v1.35.4-v1.36.3/emulation", "v1.35.4-v1.36.3/soak", "v1.36.3-v1.37.2/emulation", "v1.36.3-v1.37.2/soak",
		"ranges/v1.29.15-ipmode", "v1.36.3-v1.37.2/conformance-kind", "v1.36.3-v1.37.2/conformance-containers"}; !slices.Equal(more, want) {
		t.Errorf("provider, emulation, soak and far ends' jobs %v, want %v", more, want)
	}
	if j := full.Jobs[slices.IndexFunc(full.Jobs, func(j Job) bool { return j.What == JobRanges })]; j.From != "v1.29.15" || j.To != "v1.29.15" || j.Profiles != "ipmode" || j.Seconds != rangesEstimate {
		t.Errorf("far end's job %+v: want v1.29.15 twice, ipmode, the estimate", j)
	}
	if err := full.Validate(); err != nil {
		t.Errorf("a plan with soak jobs does not validate: %v", err)
	}
	if _, err := NewPlan(night[:1], PlanOptions{}, nil); err == nil {
		t.Error("a night of one version was planned")
	}
}

// For n = 1..8 every job is in exactly one shard, the split is the same every time, and
// no shard holds more than the mean plus the longest job (longest-first).
func TestShardsCoverThePlanOnce(t *testing.T) {
	p, err := NewPlan(night, PlanOptions{Families: []string{"peerproxy", "gateway", "ipmode"}, Providers: []string{"kind", "containers"}, Emulation: true},
		[]JobRun{{ID: "v1.33.13-v1.34.4/conformance", Seconds: 95}})
	if err != nil {
		t.Fatal(err)
	}
	total, longest := 0.0, 0.0
	for _, j := range p.Jobs {
		total += j.Seconds
		longest = max(longest, j.Seconds)
	}
	for n := 1; n <= 8; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			jobs, err := p.Shard(i, n)
			if err != nil {
				t.Fatal(err)
			}
			again, _ := p.Shard(i, n)
			if !slices.Equal(jobs, again) {
				t.Errorf("shard %d/%d differs from one call to the next", i, n)
			}
			sum := 0.0
			for _, j := range jobs {
				seen[j.ID]++
				sum += j.Seconds
			}
			if sum > total/float64(n)+longest {
				t.Errorf("shard %d/%d holds %v s, over the mean %v s plus the longest job %v s", i, n, sum, total/float64(n), longest)
			}
		}
		for _, j := range p.Jobs {
			if seen[j.ID] != 1 {
				t.Errorf("n=%d: job %s is in %d shards", n, j.ID, seen[j.ID])
			}
		}
	}
	// longest first: the longest job goes to the first shard
	first, _ := p.Shard(1, 2)
	if !slices.ContainsFunc(first, func(j Job) bool { return j.ID == "mutation/peerproxy" }) {
		t.Errorf("shard 1/2 lacks the longest job, mutation/peerproxy: %v", first)
	}
}

func TestParseShard(t *testing.T) {
	if i, n, err := ParseShard("2/4"); err != nil || i != 2 || n != 4 {
		t.Errorf("2/4: %d %d %v", i, n, err)
	}
	for _, bad := range []string{"", "3", "0/2", "3/2", "a/b", "1/0"} {
		if _, _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("%q: %v, want an error naming --shard", bad, err)
		}
	}
	if _, err := (Plan{}).Shard(0, 1); err == nil {
		t.Error("shard 0/1 was split")
	}
}

// A plan file is checked before a job runs: an unknown kind, a job listed twice, a job of
// versions the plan lacks are refused, saying which job; NewPlan's plans pass.
func TestPlanValidate(t *testing.T) {
	good, err := NewPlan([]string{"v1.35.4", "v1.36.3"}, PlanOptions{Families: []string{"gateway"}, Providers: []string{"kind"},
		RangeEnds: []RangeEnd{{Name: "v1.27.16", Version: "v1.27.16", Profiles: "mvp,chaos"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Validate(); err != nil {
		t.Errorf("NewPlan's plan: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(p *Plan)
		want string
	}{
		{"unknown kind", func(p *Plan) { p.Jobs[0].What = "bake" }, `is of kind "bake"`},
		{"twice", func(p *Plan) { p.Jobs = append(p.Jobs, p.Jobs[0]) }, "is listed twice"},
		{"foreign version", func(p *Plan) { p.Jobs[1].To = "v1.37.2" }, "do not both hold"},
		{"far end of two versions", func(p *Plan) { p.Jobs[2].To = "v1.28.15" }, "a far end's run is one release (vX.Y.Z) twice"},
		{"far end of a minor", func(p *Plan) { p.Jobs[2].From, p.Jobs[2].To = "v1.27", "v1.27" }, "a far end's run is one release"},
		{"far end without profiles", func(p *Plan) { p.Jobs[2].Profiles = "" }, "a far end's run is one release"},
	} {
		p := good
		p.Jobs = slices.Clone(good.Jobs)
		tc.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
