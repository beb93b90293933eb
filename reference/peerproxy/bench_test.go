package peerproxy_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// BenchmarkProxied compares, in one process on one cluster, the latency and throughput of
// proxied requests through upstream's proxy (apiserver-1, which has batch/v1 off, forwards
// to apiserver-2) and through the reference in front of apiserver-1, with apiserver-2
// asked directly as the baseline, with 1, 200 and 1000 clients at once (the load generator
// the gateway's bench shares), each against direct; watch events/s (a watch of 1000 jobs
// started with their ADDED events, framework.BenchmarkWatchEvents); then the time to 503
// once the peer is frozen.
// Run: make bench.
func BenchmarkProxied(b *testing.B) {
	integration.Require(b)
	ctx := context.Background()
	c := localtest.Start(b, local.Config{Name: "bench", Servers: localtest.Skewed()})
	upstream := localtest.Upstream(b, c)
	ref, _ := localtest.Reference(b, c, peerproxy.NoFlaw)
	entries := map[string]*framework.Endpoint{"upstream": upstream.Endpoints[0], "reference": ref.Endpoints[0], "direct": upstream.Endpoints[1]}
	job := `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"bench"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}}}`
	if r := entries["direct"].Do(ctx, framework.Request{Method: "POST", Path: "/apis/batch/v1/namespaces/default/jobs", Body: []byte(job)}); r.Status != 201 {
		b.Fatalf("creating the job: %s", r)
	}
	for _, op := range []struct{ name, path string }{
		{"GET", "/apis/batch/v1/namespaces/default/jobs/bench"},
		{"LIST", "/apis/batch/v1/namespaces/default/jobs"},
	} {
		for _, clients := range []int{1, 200, 1000} {
			var direct framework.BenchFigures
			for _, via := range []string{"direct", "upstream", "reference"} {
				b.Run(fmt.Sprintf("%s/clients=%d/%s", op.name, clients, via), func(b *testing.B) {
					// This process's allocations per request: the client's for direct and
					// upstream, the client's and the in-process reference's for reference.
					b.ReportAllocs()
					f := framework.BenchmarkGets(ctx, b, entries[via], op.path, clients)
					if via == "direct" {
						direct = f
					} else {
						framework.BenchReportAgainst(b, f, direct)
					}
				})
			}
		}
	}
	// Watch: a proxied stream's events, the same watch through each path.
	framework.BenchWatches(ctx, b, entries, []string{"direct", "upstream", "reference"}, "/apis/batch/v1/namespaces/default/jobs", func(i int) string {
		return fmt.Sprintf(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"watched-%d","labels":{"bench":"watch"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}}}`, i)
	})
	peer := upstream.Endpoints[1].Node
	for _, via := range []string{"reference", "upstream"} {
		b.Run("TimeTo503Frozen/"+via, func(b *testing.B) {
			e := entries[via]
			// Warm the path so the peer connection is open, as in a busy cluster.
			e.Do(ctx, framework.Request{Path: "/apis/batch/v1/namespaces/default/jobs/bench"})
			if err := peer.Freeze(); err != nil {
				b.Fatal(err)
			}
			defer peer.Thaw()
			frozen := time.Now()
			var took time.Duration
			for time.Since(frozen) < 2*time.Minute {
				r := e.Do(ctx, framework.Request{Path: "/apis/batch/v1/namespaces/default/jobs/bench"})
				if r.Status == 503 {
					took = time.Since(frozen)
					break
				}
			}
			if took == 0 {
				b.Fatalf("no 503 within 2 minutes of freezing the peer")
			}
			b.ReportMetric(took.Seconds(), "s-to-503")
			peer.Thaw()
			if err := framework.WaitReachable(ctx, upstream, time.Minute); err != nil {
				b.Fatal(err)
			}
		})
	}
}
