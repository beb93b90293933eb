package gateway_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// soakSample is what the gateway process held at one moment of the soak, and how much
// load had gone through it by then.
type soakSample struct {
	at    time.Duration // since the load began
	held  stats
	done  soakTally
	marks []string // what happened since the sample before: "restart apiserver-1", ...
}

// soakAllowance is how much a measure may grow before it counts as held: a share of what
// it is compared with, plus a constant for each measure.
type soakAllowance struct {
	share                 float64
	goroutines, fds, heap int64
}

// soakAllowed is the growth allowed from the second third of the soak to the last. The
// share (20%) absorbs what the moment of a sample decides: how many of the load's
// requests, watches and slow connections are open then (the 12 slow connections alone
// come and go), and whether an upstream was being restarted. The constants cover that
// for the small figures: 50 goroutines is a dozen requests in flight at 3 to 4
// goroutines each (client connection, handler, upstream stream) beyond the other third's
// median; 20 descriptors a churned client connection per client still closing; 4 MB a
// few LIST bodies and HTTP/2 buffers in flight. A leak of one goroutine, descriptor or
// kilobyte per request, per client connection or per watch (a third of a 10-minute soak
// makes tens of thousands of requests and hundreds of connections and watches) exceeds
// them many times over.
var soakAllowed = soakAllowance{share: 0.20, goroutines: 50, fds: 20, heap: 4 << 20}

// soakLeftAllowed is what the gateway may hold after the load beyond what it held before
// it, once the load's clients have closed their connections: a health check in flight,
// an upstream connection dialed again after a restart (a couple of goroutines and one
// descriptor each). The idle gateway holds 16 goroutines and 16 descriptors; a leak per
// request or connection leaves hundreds.
var soakLeftAllowed = soakAllowance{share: 0.20, goroutines: 20, fds: 10, heap: 4 << 20}

// soakMeasure is one of what the soak watches grow.
type soakMeasure struct {
	name  string
	of    func(stats) int64
	extra func(soakAllowance) int64
	unit  func(int64) string
}

var soakMeasures = []soakMeasure{
	{"goroutines", func(s stats) int64 { return s.goroutines }, func(a soakAllowance) int64 { return a.goroutines }, count},
	{"live heap", func(s stats) int64 { return s.heap }, func(a soakAllowance) int64 { return a.heap }, megabytes},
	{"open descriptors", func(s stats) int64 { return s.fds }, func(a soakAllowance) int64 { return a.fds }, count},
}

// beyond says how m went from was to is when that is beyond allowed, "" when within it.
func (m soakMeasure) beyond(was, is int64, allowed soakAllowance) string {
	bound := was + int64(float64(was)*allowed.share) + m.extra(allowed)
	if is <= bound {
		return ""
	}
	return fmt.Sprintf("%s from %s to %s, beyond the %s allowed (+%.0f%% and +%s)", m.name, m.unit(was), m.unit(is), m.unit(bound), 100*allowed.share, m.unit(m.extra(allowed)))
}

// soakGrowth says which measures grew: the median of the last third of the samples
// against the second third's (the first third is the warm-up: pools, caches and
// connections to both upstreams are made there), beyond allowed. Nothing when they level
// off; an error when there are too few samples to tell.
func soakGrowth(samples []soakSample, allowed soakAllowance) ([]string, error) {
	if len(samples) < 6 {
		return nil, fmt.Errorf("%d samples of the gateway, at least 6 are needed to compare the thirds of the soak: run it longer (%s)", len(samples), soakForEnv)
	}
	n := len(samples) / 3
	second, last := samples[n:2*n], samples[len(samples)-n:]
	var grew []string
	for _, m := range soakMeasures {
		if b := m.beyond(medianOf(second, m.of), medianOf(last, m.of), allowed); b != "" {
			grew = append(grew, fmt.Sprintf("%s grew under load: %s (the medians of the second third, %v-%v, and the last, %v-%v)", m.name, b,
				second[0].at.Round(time.Second), second[len(second)-1].at.Round(time.Second), last[0].at.Round(time.Second), last[len(last)-1].at.Round(time.Second)))
		}
	}
	return grew, nil
}

// soakLeft says which measures the gateway still holds more of after the load than
// before it, beyond allowed.
func soakLeft(before, after stats, allowed soakAllowance) []string {
	var left []string
	for _, m := range soakMeasures {
		if b := m.beyond(m.of(before), m.of(after), allowed); b != "" {
			left = append(left, fmt.Sprintf("%s held after the load: %s (before it and once its connections had closed)", m.name, b))
		}
	}
	return left
}

func medianOf(samples []soakSample, of func(stats) int64) int64 {
	v := make([]int64, len(samples))
	for i, s := range samples {
		v[i] = of(s.held)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func count(n int64) string     { return fmt.Sprint(n) }
func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// soakCurve is the samples as a table of at most rows rows, each the medians of its
// share of the samples, with the load done in it and what happened in it.
func soakCurve(samples []soakSample, rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%8s %10s %9s %5s %8s %8s %7s %8s  %s\n", "t", "goroutines", "heap MB", "fds", "rss MB", "requests", "failed", "events", "meanwhile")
	per := max(1, (len(samples)+rows-1)/rows)
	var before soakTally
	for i := 0; i < len(samples); i += per {
		part := samples[i:min(i+per, len(samples))]
		end := part[len(part)-1]
		var marks []string
		for _, s := range part {
			marks = append(marks, s.marks...)
		}
		fmt.Fprintf(&b, "%8v %10d %9.1f %5d %8.1f %8d %7d %8d  %s\n", end.at.Round(time.Second),
			medianOf(part, func(s stats) int64 { return s.goroutines }),
			float64(medianOf(part, func(s stats) int64 { return s.heap }))/(1<<20),
			medianOf(part, func(s stats) int64 { return s.fds }),
			float64(medianOf(part, func(s stats) int64 { return s.rss }))/(1<<20),
			end.done.requests()-before.requests(), end.done.failed-before.failed, end.done.events-before.events,
			strings.Join(marks, ", "))
		before = end.done
	}
	return b.String()
}

func TestSoakGrowthLevelsOffOrGrows(t *testing.T) {
	curve := func(grow func(i int) stats) []soakSample {
		var out []soakSample
		for i := range 30 {
			out = append(out, soakSample{at: time.Duration(i) * time.Second, held: grow(i)})
		}
		return out
	}
	level := curve(func(i int) stats { // climbs in the warm-up, then noise around a level
		return stats{goroutines: min(int64(i)*40, 400) + int64(i%3)*20, heap: min(int64(i), 10) << 20, fds: 60 + int64(i%4)}
	})
	if grew, err := soakGrowth(level, soakAllowed); err != nil || len(grew) > 0 {
		t.Errorf("a curve that levels off: %v, %v", grew, err)
	}
	leak := curve(func(i int) stats { // 30 goroutines and 6 descriptors more each sample
		return stats{goroutines: 200 + int64(i)*30, heap: 10 << 20, fds: 60 + int64(i)*6}
	})
	grew, err := soakGrowth(leak, soakAllowed)
	if err != nil || len(grew) != 2 || !strings.HasPrefix(grew[0], "goroutines grew under load: goroutines from 650 to 950,") || !strings.HasPrefix(grew[1], "open descriptors grew") {
		t.Errorf("a curve that grows: %q, %v", grew, err)
	}
	if _, err := soakGrowth(level[:5], soakAllowed); err == nil {
		t.Error("5 samples were judged")
	}
}

func TestSoakLeftAfterTheLoad(t *testing.T) {
	before := stats{goroutines: 16, fds: 16, heap: 4 << 20}
	if left := soakLeft(before, stats{goroutines: 22, fds: 20, heap: 5 << 20}, soakLeftAllowed); len(left) > 0 {
		t.Errorf("an upstream connection dialed again: %q", left)
	}
	left := soakLeft(before, stats{goroutines: 314, fds: 19, heap: 5 << 20}, soakLeftAllowed)
	if len(left) != 1 || !strings.HasPrefix(left[0], "goroutines held after the load: goroutines from 16 to 314, beyond the 39 allowed") {
		t.Errorf("goroutines left behind by a leak: %q", left)
	}
}
