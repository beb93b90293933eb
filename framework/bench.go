package framework

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchFigures are what one front's benchmark measured: the median and 99th-percentile
// latency and the rate.
type BenchFigures struct {
	P50, P99 time.Duration
	Rate     float64 // requests per second
}

// BenchmarkGets is the one load generator of every front's benchmarks (the reference
// peer proxy, the reference gateway, upstream's proxy, direct), so they print the same
// figures on the same work: b.N GETs of path in all, sent by clients goroutines at once
// through e's one client (as the goroutines of one client-go program share its
// connection), each asserted 200; reported as p50-ms, p99-ms and req/s, and returned so
// a later front can be reported against direct (BenchReportAgainst).
func BenchmarkGets(ctx context.Context, b *testing.B, e *Endpoint, path string, clients int) BenchFigures {
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Pointer[Response]
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range min(clients, b.N) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) || failed.Load() != nil {
					return
				}
				r := e.Do(ctx, Request{Path: path})
				if r.Status != 200 {
					failed.CompareAndSwap(nil, &r)
					return
				}
				lat[i] = r.Latency
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if r := failed.Load(); r != nil {
		b.Fatalf("with %d clients: %s", clients, r)
	}
	slices.Sort(lat)
	f := BenchFigures{P50: lat[len(lat)/2], P99: lat[len(lat)*99/100], Rate: float64(b.N) / elapsed.Seconds()}
	b.ReportMetric(float64(f.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(f.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(f.Rate, "req/s")
	return f
}

// BenchReportAgainst reports a front's figures beside direct's, measured in the same run
// on the same work: the added median and 99th-percentile latency (ms) and the share of
// direct's rate, the terms issue 57's goals are stated in (within 0.3 ms, at least 90%).
// Nothing is reported against a direct that did not run (-bench selected the front
// alone): its zero figures would read as the front's whole latency added.
func BenchReportAgainst(b *testing.B, f, direct BenchFigures) {
	if direct.Rate == 0 {
		return
	}
	b.ReportMetric(float64((f.P50-direct.P50).Microseconds())/1000, "p50-added-ms")
	b.ReportMetric(float64((f.P99-direct.P99).Microseconds())/1000, "p99-added-ms")
	BenchReportRateAgainst(b, f.Rate, direct.Rate, "rate")
}
