// Package localtest makes the local clusters the integration tests run on: servers at the
// integration versions (integration.Versions), a cluster deleted when the test ends, and
// the reference peer proxy in front of it. It lives under clusters/ rather than in
// internal/integration because it starts clusters: internal packages import nothing of the
// module (internal/layers), while clusters may import internal, framework and reference.
package localtest

import (
	"context"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
)

// Start makes cfg's local cluster for tb and deletes it at tb's cleanup; it fails tb when
// the cluster cannot be made.
func Start(tb testing.TB, cfg local.Config) *local.Cluster {
	tb.Helper()
	c, err := local.New(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := c.Delete(); err != nil {
			tb.Logf("deleting cluster %s: %v", cfg.Name, err)
		}
	})
	return c
}
