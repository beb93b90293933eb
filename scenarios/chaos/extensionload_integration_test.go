package chaos_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// TestExtensionOriginCrashGoesUnnoticed: under each extension load (a CRD; an aggregated
// API, its server in this process), made through apiserver-2 and loaded through
// apiserver-1, apiserver-2 killed for 3 s. Upstream (1.35+ leaves CRDs' and Service-backed
// APIServices' group-versions out of peer routing) and the reference serve them locally: no
// error at all. The reference with the proxy-custom-resources flaw, whose local view
// predates the extension, forwards it to apiserver-2 and answers 503: the load's verdict
// fails it. One cluster, two fronts on it in turn; about 30 s a load.
func TestExtensionOriginCrashGoesUnnoticed(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "chaosext", Servers: localtest.Pair()})
	upstream := localtest.Upstream(t, c)
	for _, load := range []string{chaos.LoadCRD, chaos.LoadAggregated} {
		t.Run(load, func(t *testing.T) {
			opts := chaos.Options{For: 3 * time.Second, Interval: 100 * time.Millisecond, Recover: time.Minute, Seed: 28, Load: load}
			measure := func(name string, target *framework.Target) chaos.Outcome {
				t.Helper()
				route, remove, err := chaos.ExtensionRoute(ctx, target, target.Endpoints[1], opts.Load, opts.Seed, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := remove(ctx); err != nil {
						t.Error(err)
					}
				}()
				o := chaos.Measure(ctx, name, route, faults.Crash(route.Peer), opts)
				t.Logf("%s: %s", name, strings.TrimSpace(chaos.Markdown([]chaos.Outcome{o})))
				if o.Error != "" || o.Skipped != "" || o.Reads == 0 {
					t.Fatalf("%s: measured nothing: %s%s", name, o.Error, o.Skipped)
				}
				if target.Converge != nil {
					if err := target.Converge(ctx); err != nil {
						t.Fatal(err)
					}
				}
				return o
			}
			if v := chaos.Violations([]chaos.Outcome{measure("upstream", upstream)}); len(v) > 0 {
				t.Errorf("upstream: %q", v)
			}
			for _, flaw := range []peerproxy.Flaw{peerproxy.NoFlaw, peerproxy.FlawProxyCustomResources} {
				target, stop := localtest.Reference(t, c, flaw)
				v := chaos.Violations([]chaos.Outcome{measure("reference"+string(flaw), target)})
				stop()
				switch {
				case flaw == peerproxy.NoFlaw && len(v) > 0:
					t.Errorf("the reference: %q", v)
				case flaw != peerproxy.NoFlaw && (len(v) == 0 || !strings.Contains(v[0], "must go unnoticed")):
					t.Errorf("the reference with %s forwards the %s load's resource to the crashed server, yet the verdict is %q", flaw, load, v)
				}
			}
		})
	}
}
