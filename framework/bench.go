package framework

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkGets is a benchmark's body for one path through one endpoint: b.N GETs, each
// asserted 200, reported as the median and 99th-percentile latency and the rate, so every
// front's benchmarks (the reference peer proxy, the reference gateway, direct) print the
// same figures side by side.
func BenchmarkGets(ctx context.Context, b *testing.B, e *Endpoint, path string) {
	lat := make([]time.Duration, 0, b.N)
	start := time.Now()
	for i := 0; i < b.N; i++ {
		r := e.Do(ctx, Request{Path: path})
		if r.Status != 200 {
			b.Fatalf("%s", r)
		}
		lat = append(lat, r.Latency)
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}
