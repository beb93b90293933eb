package localtest

import (
	"context"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
)

// Upstream is c's own target: its apiservers, with whatever mixed version proxy they run
// themselves, and no front. It fails tb when c cannot describe its servers.
func Upstream(tb testing.TB, c *local.Cluster) *framework.Target {
	tb.Helper()
	target, err := c.Target(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return target
}
