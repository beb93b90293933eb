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

// soakAllowance is how much a measure may grow from the second third of the soak to the
// last before it counts as growth: share of the second third's median, plus a constant.
// The shares (20%) absorb what the moment of a sample decides: how many of the load's
// requests, watches and slow connections are open then, and whether an upstream was being
// restarted. The constants cover that for the small figures: 50 goroutines is a dozen
// requests in flight at 3 to 4 goroutines each (client connection, handler, upstream
// stream) beyond the other third's median; 20 descriptors a churned client connection per
// client still closing; 4 MB a few LIST bodies and HTTP/2 buffers in flight. A leak of one
// goroutine, descriptor or kilobyte per request, per client connection or per watch (the
// soak makes thousands of requests and hundreds of connections and watches in a third)
// exceeds them many times over.
type soakAllowance struct {
	share                 float64
	goroutines, fds, heap int64
}

var soakAllowed = soakAllowance{share: 0.20, goroutines: 50, fds: 20, heap: 4 << 20}

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
	for _, m := range []struct {
		name  string
		of    func(stats) int64
		extra int64
		unit  func(int64) string
	}{
		{"goroutines", func(s stats) int64 { return s.goroutines }, allowed.goroutines, count},
		{"live heap", func(s stats) int64 { return s.heap }, allowed.heap, megabytes},
		{"open descriptors", func(s stats) int64 { return s.fds }, allowed.fds, count},
	} {
		was, is := medianOf(second, m.of), medianOf(last, m.of)
		bound := was + int64(float64(was)*allowed.share) + m.extra
		if is > bound {
			grew = append(grew, fmt.Sprintf("%s grew from %s (median of the second third, %v-%v) to %s (last third, %v-%v), beyond the %s allowed (+%.0f%% and +%s)",
				m.name, m.unit(was), second[0].at.Round(time.Second), second[len(second)-1].at.Round(time.Second),
				m.unit(is), last[0].at.Round(time.Second), last[len(last)-1].at.Round(time.Second), m.unit(bound), 100*allowed.share, m.unit(m.extra)))
		}
	}
	return grew, nil
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

func TestSoakGrowthLevelOffAndGrowth(t *testing.T) {
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
	if err != nil || len(grew) != 2 || !strings.HasPrefix(grew[0], "goroutines grew from 650 ") || !strings.HasPrefix(grew[1], "open descriptors grew") {
		t.Errorf("a curve that grows: %q, %v", grew, err)
	}
	if _, err := soakGrowth(level[:5], soakAllowed); err == nil {
		t.Error("5 samples were judged")
	}
}
