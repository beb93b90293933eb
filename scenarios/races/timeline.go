// Package races provokes the registration races of the mixed version proxy: requests that
// arrive while a peer registers, restarts, crashed with its lease left behind, or loses
// its lease. Each race asserts upstream's documented outcome and measures its window.
package races

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// Timeline is what a poller saw: each answer's status with its time since the race began.
type Timeline struct {
	mu     sync.Mutex
	t0     time.Time
	points []Point
}

// Point is one answer: when it came (T) and when its request was sent (Sent).
type Point struct {
	T      float64 `json:"t"`
	Sent   float64 `json:"sent"`
	Status int     `json:"status"`
}

// poll asks path through e every interval until ctx ends, recording every answer.
func poll(ctx context.Context, e *framework.Endpoint, path string, interval time.Duration) *Timeline {
	tl := &Timeline{t0: time.Now()}
	go func() {
		for ctx.Err() == nil {
			sent := time.Since(tl.t0).Seconds()
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			r := e.Do(rctx, framework.Request{Path: path})
			cancel()
			if ctx.Err() != nil {
				return
			}
			tl.mu.Lock()
			tl.points = append(tl.points, Point{T: time.Since(tl.t0).Seconds(), Sent: sent, Status: r.Status})
			tl.mu.Unlock()
			time.Sleep(interval)
		}
	}()
	return tl
}

// Points returns a copy of the answers so far.
func (tl *Timeline) Points() []Point {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]Point(nil), tl.points...)
}

// Since is seconds since the race began.
func (tl *Timeline) Since() float64 { return time.Since(tl.t0).Seconds() }

// waitFor polls the timeline until an answer with status arrives after from (seconds), or
// the bound passes; it returns that answer's time, or -1.
func (tl *Timeline) waitFor(ctx context.Context, status int, from float64, bound time.Duration) float64 {
	return tl.waitUntil(ctx, bound, func(p Point) bool { return p.T >= from && p.Status == status })
}

// waitForSent is waitFor for answers to requests sent after from: not one that was on its
// way before (and may carry what the server said before from).
func (tl *Timeline) waitForSent(ctx context.Context, status int, from float64, bound time.Duration) float64 {
	return tl.waitUntil(ctx, bound, func(p Point) bool { return p.Sent >= from && p.Status == status })
}

// waitUntil polls the timeline until an answer matches, or the bound passes; it returns
// that answer's time, or -1.
func (tl *Timeline) waitUntil(ctx context.Context, bound time.Duration, match func(Point) bool) float64 {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, p := range tl.Points() {
			if match(p) {
				return p.T
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return -1
}

// Counts is the number of answers per status between two times.
func Counts(points []Point, from, to float64) map[int]int {
	c := map[int]int{}
	for _, p := range points {
		if p.T >= from && p.T <= to {
			c[p.Status]++
		}
	}
	return c
}

// Summary renders the statuses as runs: "200x12 503x4 200x30".
func Summary(points []Point) string {
	var runs []string
	for i := 0; i < len(points); {
		j := i
		for j < len(points) && points[j].Status == points[i].Status {
			j++
		}
		runs = append(runs, fmt.Sprintf("%dx%d", points[i].Status, j-i))
		i = j
	}
	return strings.Join(runs, " ")
}

func sortedStatuses(c map[int]int) []int {
	var s []int
	for k := range c {
		s = append(s, k)
	}
	sort.Ints(s)
	return s
}

// LongestRun is seconds from the first to the last point of the longest run of points that
// all answered status.
func LongestRun(points []Point, status int) float64 {
	longest := 0.0
	for i := 0; i < len(points); {
		j := i
		for j < len(points) && points[j].Status == points[i].Status {
			j++
		}
		if points[i].Status == status && points[j-1].T-points[i].T > longest {
			longest = points[j-1].T - points[i].T
		}
		i = j
	}
	return longest
}
