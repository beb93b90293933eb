package local

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// BenchmarkBringUp measures bring-up to convergence (every /readyz, then every proxy path
// live) with cached binaries, and tear-down, for 2 and 3 servers. Run: make bench.
func BenchmarkBringUp(b *testing.B) {
	integration.Require(b)
	oldV, newV := integration.Versions()
	for _, versions := range [][]string{{oldV, newV}, {oldV, newV, newV}} {
		b.Run(fmt.Sprintf("servers=%d", len(versions)), func(b *testing.B) {
			ctx := context.Background()
			// Resolve and cache binaries outside the timed part.
			warm := &Cluster{cfg: Config{}}
			warm.cfg.setDefaults()
			for _, v := range versions {
				if _, _, err := warm.binaryFor(ctx, v); err != nil {
					b.Fatal(err)
				}
			}
			var ready, converged, teardown time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c, err := New(ctx, Config{Name: "bench", Servers: clusters.SpecsFor(versions)})
				if err != nil {
					b.Fatal(err)
				}
				ready += c.Timings.Ready
				converged += c.Timings.Converged
				start := time.Now()
				if err := c.Delete(); err != nil {
					b.Fatal(err)
				}
				teardown += time.Since(start)
			}
			n := float64(b.N)
			b.ReportMetric(ready.Seconds()/n, "ready-s/op")
			b.ReportMetric(converged.Seconds()/n, "converged-s/op")
			b.ReportMetric(teardown.Seconds()/n, "teardown-s/op")
		})
	}
}
