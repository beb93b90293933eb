package localtest

import (
	"context"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// Reference puts the reference peer proxy with flaw (peerproxy.NoFlaw: none) in front of
// c's apiservers, with the 2 s peer timeout the tests' bounds assume, and fails tb when it
// cannot. The proxies stop at tb's cleanup, or sooner by the returned func: a test that
// tries several flaws stops each front before the next, since they listen at the same
// addresses.
func Reference(tb testing.TB, c *local.Cluster, flaw peerproxy.Flaw) (*framework.Target, func()) {
	tb.Helper()
	target, stop, err := front.On(context.Background(), c, front.PeerProxy{PeerTimeout: 2 * time.Second, Flaw: flaw})
	if err != nil {
		tb.Fatal(err)
	}
	// Stopping twice is harmless: a stopped proxy is skipped.
	tb.Cleanup(stop)
	return target, stop
}
