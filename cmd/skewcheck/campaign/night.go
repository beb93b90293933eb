package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
)

// NightOptions are what one night runs for every adjacent pair of versions.
type NightOptions struct {
	Versions []string // oldest first; a minor means its newest patch release
	Profiles []string // conformance profiles run against every pair
	// ControllerManager is where the conformance job's kube-controller-manager connects
	// (conformance --controller-manager: own-node, load-balancer, apiserver-N); "" runs
	// none, and the controllers profile's tests skip saying so.
	ControllerManager string
	Servers           int    // apiservers of each rolling upgrade
	Fault             string // process fault hitting the next server during every upgrade step; "" for none
	Seed              int64  // 0: from the clock
	ReportDir         string
	Mutation          bool     // a job per family of the mutation matrix, on the newest pair
	Providers         []string // other providers the newest pair runs on, a job each
	Emulation         bool     // each pair's emulated-vs-real comparison, where the newer can emulate the older
	Soak              bool     // each pair's soak profiles, where they apply to both versions
	Ranges            bool     // the version ranges' far ends (suites.RangeEnds), a job each
	Jobs              string   // only the plan's jobs whose ID matches this
	Shard             string   // "i/n"
	Previous          string   // an earlier night's nightly.json, for the plan's durations
	PlanFile          string   // a plan NightPlan made, run as it is
	Binaries          binaries.Options
	// Self is the skewcheck binary each job is.
	Self string
}

// night is one night as it runs: its options, where its lines go, and the page its jobs
// fill in.
type night struct {
	NightOptions
	log  io.Writer
	page *matrix.Nightly
}

// Night runs o.Shard's share of the night's plan (NightPlan), each job a child skewcheck
// of the kind it is (jobKinds), writes the night to o.ReportDir after every job (a killed
// night still has its page), and prints its closing lines to out; the jobs' lines go to
// log. A night with failures is Failed.
func Night(ctx context.Context, o NightOptions, out, log io.Writer) error {
	start := time.Now()
	shardI, shardN, err := checkNight(o, false)
	if err != nil {
		return err
	}
	plan, err := planNight(ctx, o)
	if err != nil {
		return err
	}
	o.Seed = framework.SeedOrClock(o.Seed)
	jobs, err := plan.Shard(shardI, shardN)
	if err != nil {
		return err
	}
	if o.Jobs != "" {
		if jobs, err = onlyJobs(jobs, o.Jobs, o.Shard); err != nil {
			return err
		}
	}
	if err := runnable(jobs); err != nil {
		return err
	}
	// Every binary the shard needs first, one at a time: a build already uses both cores,
	// and a failed build should end the night before any cluster starts.
	o.Binaries.Progress = log
	needed := neededVersions(jobs)
	for i, v := range needed {
		fmt.Fprintf(log, "== nightly: kube-apiserver %s (%d of %d)\n", v, i+1, len(needed))
		if _, err := binaries.Ensure(ctx, binaries.KubeAPIServer, v, o.Binaries); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return err
	}
	machine, _ := os.Hostname()
	n := &night{NightOptions: o, log: log,
		page: &matrix.Nightly{Date: start, Versions: plan.Versions, Seed: o.Seed, Shard: o.Shard, Plan: &plan, Machine: machine}}
	if len(jobs) == 0 {
		fmt.Fprintf(log, "== nightly: shard %s has no job of the plan's %d (more shards than jobs): its night is empty\n", o.Shard, len(plan.Jobs))
	}
	// The night is written before its first job too: a shard that got no job leaves a
	// night of none, which a merge reads as a shard that did its share, not as one that
	// left nothing (whose jobs would be missing); one killed in its first job leaves its
	// shard, seed and machine.
	if err := WriteNightly(o.ReportDir, n.page); err != nil {
		return err
	}
	for i, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(log, "== nightly: job %d of %d of shard %s: %s\n", i+1, len(jobs), o.Shard, j.ID)
		began := time.Now()
		jobKinds[j.What](ctx, n, j)
		run := matrix.JobRun{ID: j.ID, Machine: machine, Shard: o.Shard, Seconds: time.Since(began).Seconds()}
		if ctx.Err() != nil {
			// Cut short: its time is no measure for the next night's plan (NewPlan skips it).
			run.Error = "interrupted"
		}
		n.page.Jobs = append(n.page.Jobs, run)
		n.page.Duration = time.Since(start).Seconds()
		if err := WriteNightly(o.ReportDir, n.page); err != nil { // after every job: a killed night still has its page
			return err
		}
	}
	fmt.Fprintln(out, n.page.Summary())
	fmt.Fprintln(out, "index:", filepath.Join(o.ReportDir, "index.html"))
	if f := n.page.Failures(); len(f) > 0 {
		return Failed{fmt.Errorf("the nightly run failed (replay a pair with --seed %d):\n  %s", o.Seed, strings.Join(f, "\n  "))}
	}
	return ctx.Err()
}
