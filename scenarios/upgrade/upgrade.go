// Package upgrade is the rolling-upgrade scenario of the nightly skew jobs: every server
// starts at the old version; a seeded load reads, writes and watches through every server,
// over core resources and whatever some servers serve and others do not; servers are
// upgraded one at a time (graceful stop, start at the new version). It asserts what the
// mixed version proxy promises and draws a timeline.
package upgrade

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Options of one rolling upgrade.
type Options struct {
	From, To string
	Servers  int
	Seed     int64
	// Interval paces each server's load; Settle is load before the first step, between
	// steps and after the last, so that much traffic falls outside every window; Window is
	// the declared convergence window after a step (which already waited for convergence),
	// in which 404s and 503s are expected and only counted.
	Interval, Settle, Window time.Duration
	Progress                 io.Writer
	// Provider makes the cluster (clusters.New; default providers.Default), from Cluster
	// (Name, Binaries, Port...; Servers is set from From). Run deletes it at the end.
	Provider string
	Cluster  clusters.Spec
	// Fault, when set, goes wrong during every step: the named process fault (crash, stop,
	// freeze) hits the next server, not the one being upgraded, as the step starts, and
	// heals after FaultFor. Its span counts as a window, like a step's.
	Fault    string
	FaultFor time.Duration
}

// FaultSpan is one fault injected during the upgrade, in seconds since the start.
type FaultSpan struct {
	Server      string  `json:"server"`
	Fault       string  `json:"fault"`
	Description string  `json:"description"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"` // healed
}

// Step is one server's upgrade, in seconds since the start.
type Step struct {
	Server string  `json:"server"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Start  float64 `json:"start"`
	End    float64 `json:"end"` // converged again
}

// Event is one answer the load got.
type Event struct {
	T      float64 `json:"t"`
	Server string  `json:"server"`
	Kind   string  `json:"kind"` // read, write, watch-end, watch-relist, watch-resume
	GVR    string  `json:"gvr,omitempty"`
	Status int     `json:"status"`
}

// Counts are the figures compared night to night.
type Counts struct {
	Reads, Writes, AckedWrites, LostWrites int
	// NotFound and Unavailable count 404s and 503s for resources a live server serves,
	// outside every step's window (violations) and inside (expected, reported).
	NotFoundOutside, NotFoundInside       int
	UnavailableOutside, UnavailableInside int
	WatchResumes                          int
	WatchesNotResumed                     []string
}

// Result is the whole run.
type Result struct {
	From, To   string
	Servers    int
	Seed       int64
	Window     float64 `json:"windowSeconds"`
	Duration   float64 `json:"durationSeconds"`
	Steps      []Step
	Faults     []FaultSpan `json:",omitempty"`
	Counts     Counts
	Violations []string
	Events     []Event
}

// Passed is true when no assertion was violated.
func (r *Result) Passed() bool { return len(r.Violations) == 0 }

// Run makes the cluster, runs the load and the upgrade steps, checks, and deletes the cluster.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Fault != "" {
		if err := faults.Check(o.Fault); err != nil {
			return nil, err
		}
		if !faults.IsProcess(o.Fault) {
			return nil, fmt.Errorf("fault %s: during an upgrade only process faults (crash, stop, freeze) apply; upstream's peer traffic does not take a peer path skewcheck can fault", o.Fault)
		}
		if o.FaultFor <= 0 {
			o.FaultFor = 5 * time.Second
		}
	}
	c, err := makeCluster(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Delete()
	target, err := c.Target(ctx)
	if err != nil {
		return nil, err
	}
	members := c.Members()
	r := &Result{From: members[0].Version(), Servers: o.Servers, Seed: o.Seed, Window: o.Window.Seconds()}
	l := newLoad(target, o, time.Now())
	l.track(ctx)
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	l.start(loadCtx, &wg)
	sleep(ctx, o.Settle)
	for i, s := range members {
		step := Step{Server: s.Name(), From: s.Version(), To: o.To, Start: l.since()}
		var faulted <-chan FaultSpan
		if o.Fault != "" {
			victim := members[(i+1)%len(members)]
			if faulted, err = faultDuring(ctx, target, victim.Name(), o, l); err != nil {
				stopLoad()
				wg.Wait()
				return nil, err
			}
		}
		fmt.Fprintf(o.Progress, "upgrading %s: %s -> %s\n", s.Name(), s.Version(), o.To)
		if err := s.Restart(ctx, o.To); err != nil {
			if faulted != nil {
				<-faulted // healed before the cluster goes
			}
			stopLoad()
			wg.Wait()
			return nil, fmt.Errorf("upgrading %s: %w", s.Name(), err)
		}
		if faulted != nil {
			r.Faults = append(r.Faults, <-faulted)
		}
		if err := c.WaitConverged(ctx); err != nil {
			stopLoad()
			wg.Wait()
			return nil, fmt.Errorf("after upgrading %s: %w", s.Name(), err)
		}
		step.End = l.since()
		r.Steps = append(r.Steps, step)
		r.To = s.Version()
		if err := target.Refresh(ctx); err == nil {
			l.track(ctx)
		}
		fmt.Fprintf(o.Progress, "step %d/%d done in %.1fs\n", i+1, len(members), step.End-step.Start)
		sleep(ctx, o.Settle)
	}
	stopLoad()
	wg.Wait()
	r.Duration = l.since()
	l.check(ctx, r)
	return r, nil
}

// faultDuring injects o.Fault into the named server now and heals it after o.FaultFor, in
// the background; the span arrives on the channel once healed.
func faultDuring(ctx context.Context, target *framework.Target, server string, o Options, l *load) (<-chan FaultSpan, error) {
	f, err := faults.ByName(o.Fault, faults.NewSubject(target.Endpoints, target.Endpoint(server), nil))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Progress, "fault during the step: %s\n", f.Description())
	span := FaultSpan{Server: server, Fault: f.Name(), Description: f.Description(), Start: l.since()}
	heal, err := faults.Inject(ctx, f)
	if err != nil {
		return nil, err
	}
	done := make(chan FaultSpan, 1)
	go func() {
		sleep(ctx, o.FaultFor)
		if err := heal(context.Background()); err != nil {
			fmt.Fprintf(o.Progress, "warning: %v\n", err)
		}
		span.End = l.since()
		done <- span
	}()
	return done, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// inWindow reports whether t lies in a step or a fault, or in the declared window after one.
func (r *Result) inWindow(t float64) bool {
	for _, s := range r.Steps {
		if t >= s.Start && t <= s.End+r.Window {
			return true
		}
	}
	for _, f := range r.Faults {
		if t >= f.Start && t <= f.End+r.Window {
			return true
		}
	}
	return false
}

// classify counts the load's answers against the steps.
func (r *Result) classify() {
	for _, e := range r.Events {
		switch e.Kind {
		case "read":
			r.Counts.Reads++
		case "write":
			r.Counts.Writes++
		case "watch-resume":
			r.Counts.WatchResumes++
		}
		if e.Kind != "read" && e.Kind != "write" {
			continue
		}
		in := r.inWindow(e.T)
		switch {
		case e.Status == 404 && in:
			r.Counts.NotFoundInside++
		case e.Status == 404:
			r.Counts.NotFoundOutside++
			r.Violations = append(r.Violations, fmt.Sprintf("404 for %s through %s at %.1fs, outside every step window", e.GVR, e.Server, e.T))
		case e.Status == 503 && in:
			r.Counts.UnavailableInside++
		case e.Status == 503:
			r.Counts.UnavailableOutside++
			r.Violations = append(r.Violations, fmt.Sprintf("503 for %s through %s at %.1fs, outside every step window", e.GVR, e.Server, e.T))
		}
	}
	sort.Slice(r.Events, func(i, j int) bool { return r.Events[i].T < r.Events[j].T })
}

// Classify counts r.Events against r.Steps (exported for tests and for re-reading a saved
// run with another window).
func Classify(r *Result) { r.classify() }
