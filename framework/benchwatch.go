package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// BenchWatchObjects is how many objects the fronts' watch benchmarks start their watches
// with, one ADDED event each: enough that a stream's rate, not its start, is measured.
const BenchWatchObjects = 1000

// BenchmarkWatchEvents measures how fast a watch through e delivers events, the same work
// for every front: b.N times, a watch of path (a list path with its selector) from any
// resourceVersion (0: the server starts it at once from its watch cache, with one ADDED
// event for each of the want objects that exist, and waits for no fresher state, a fixed
// cost that would be measured instead of the stream) is read until want events came.
// Reported as events/s over all and returned, for BenchReportRateAgainst.
func BenchmarkWatchEvents(ctx context.Context, b *testing.B, e *Endpoint, path string, want int) float64 {
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := readWatchEvents(ctx, e, path, want); err != nil {
			b.Fatal(err)
		}
	}
	rate := float64(b.N*want) / time.Since(start).Seconds()
	b.StopTimer()
	b.ReportMetric(rate, "events/s")
	return rate
}

// readWatchEvents opens one watch of path through e and reads it until want events came.
func readWatchEvents(ctx context.Context, e *Endpoint, path string, want int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	client, req, err := StreamRequest(ctx, e, path+"&watch=true&resourceVersion=0")
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("watching %s via %s: %w", path, e.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("watching %s via %s: HTTP %d", path, e.Name, resp.StatusCode)
	}
	dec := json.NewDecoder(resp.Body)
	for got := 0; got < want; {
		var ev struct{ Type string }
		if err := dec.Decode(&ev); err != nil {
			return fmt.Errorf("watching %s via %s: the stream ended after %d of %d events: %w", path, e.Name, got, want, err)
		}
		if ev.Type == "ADDED" {
			got++
		}
	}
	return nil
}

// benchObjects creates n objects in collection through e, 20 at a time, each of
// body(i), for a benchmark to read back; it fails b on any answer but 201.
func benchObjects(ctx context.Context, b *testing.B, e *Endpoint, collection string, n int, body func(i int) string) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan Response, n)
	next := make(chan int)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if r := e.Do(ctx, Request{Method: http.MethodPost, Path: collection, Body: []byte(body(i))}); r.Status != http.StatusCreated {
					errs <- r
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for r := range errs {
		b.Fatalf("creating the benchmark's %d objects in %s: %s", n, collection, r)
	}
}

// BenchWatches is the fronts' watch benchmark: it makes BenchWatchObjects objects in
// collection through endpoints[vias[0]], direct (each body(i) labelled bench=watch), then
// runs BenchmarkWatchEvents on their watch as sub-benchmark WATCH/<via> for each of vias
// in turn, every one after the first reported against it.
func BenchWatches(ctx context.Context, b *testing.B, endpoints map[string]*Endpoint, vias []string, collection string, body func(i int) string) {
	benchObjects(ctx, b, endpoints[vias[0]], collection, BenchWatchObjects, body)
	var direct float64
	for i, via := range vias {
		b.Run("WATCH/"+via, func(b *testing.B) {
			rate := BenchmarkWatchEvents(ctx, b, endpoints[via], collection+"?labelSelector=bench%3Dwatch", BenchWatchObjects)
			if i == 0 {
				direct = rate
			} else {
				BenchReportRateAgainst(b, rate, direct, "events")
			}
		})
	}
}

// BenchReportRateAgainst reports a front's rate as a share of direct's, measured in the
// same run on the same work (unit names it, e.g. "events"); nothing against a direct that
// did not run.
func BenchReportRateAgainst(b *testing.B, rate, direct float64, unit string) {
	if direct == 0 {
		return
	}
	b.ReportMetric(100*rate/direct, unit+"-%-of-direct")
}
