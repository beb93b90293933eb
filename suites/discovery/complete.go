package discovery

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// completeThroughClientGo: through every entry, client-go's discovery retrieves the
// complete list of server APIs, and it lists every GVR any server serves, whether the
// client asks for aggregated discovery (merged /apis) or legacy discovery (/apis, then
// /apis/<group>/<version> per group-version). The symptom this catches is kubectl's
// "unable to retrieve the complete list of server APIs: batch/v1: the server could not
// find the requested resource" during an upgrade (kubernetes#96486, #113861).
//
// Aggregated first, until the convergence bound: once every entry's merged view is whole,
// the proxy knows its peers, and legacy discovery is read once, with nothing left to wait for.
func completeThroughClientGo(ctx context.Context, env *framework.Env) {
	var all []disc.Set
	for _, e := range env.Target.Endpoints {
		all = append(all, e.Served)
	}
	union := disc.Union(all...)
	for _, e := range env.Target.Endpoints {
		cfg := clientConfig(e, env)
		// A round is some twenty requests: polled at a human pace, not gomega's 10 ms.
		Eventually(func() string { return readThroughClientGo(cfg, false).failure(union) }).
			WithTimeout(env.Timeouts.Converge).WithPolling(250*time.Millisecond).
			Should(BeEmpty(), "client-go's aggregated discovery through %s", e.Name)
	}
	for _, e := range env.Target.Endpoints {
		v := readThroughClientGo(clientConfig(e, env), true)
		env.Deviation(v.observe(e, union, true), func() {
			Expect(v.failure(union)).To(BeEmpty(), "client-go's legacy discovery through %s", e.Name)
		})
	}
}

// clientConfig is the admin's config at e, each request bounded by the run's request timeout.
func clientConfig(e *framework.Endpoint, env *framework.Env) *rest.Config {
	cfg := rest.CopyConfig(e.Admin)
	if cfg.Timeout == 0 {
		cfg.Timeout = env.Timeouts.Request
	}
	return cfg
}
