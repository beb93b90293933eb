package app

import (
	"context"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/proxystate"
	"github.com/skewcheck/skewcheck/framework/report"
)

// readProxyState reads the Mixed Version Proxy's state at every server of t, before any
// test or load, and prints it with the progress: a line per server, the verdict, and the
// fix when a server's proxy is inert, so the one cause is read before the failures it
// explains. It takes seconds at most (proxystate.Budget).
func readProxyState(ctx context.Context, streams IOStreams, t *framework.Target) *report.ProxyState {
	p := proxystate.Read(ctx, t)
	report.WriteProxyState(streams.ErrOut, p)
	return p
}
