package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Slow clients (the slow-client fault of the chaos table, issue 28 5(c)) through the
// gateway: slowClientsPerKind connections of each slow kind (headers, a create's body, a
// watch read, a byte a second) held for slowClientsFor while a load of LISTs and creates of
// ConfigMaps runs through the gateway on connections of its own. The load must not notice:
// every answer a success, none slower than the chaos verdict's bound. The hold is shorter
// than the reference gateway's 30 s header timeout, to keep the profile quick: when a
// gateway cuts slow connections is measured by `skewcheck chaos` runs (docs/chaos.md).
const (
	slowClientsPerKind = 8
	slowClientsFor     = 10 * time.Second
)

var configMaps = discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

func slowClientsUnnoticed(ctx context.Context, env *framework.Env) {
	g := env.Target.Gateway
	route := framework.Route{Entry: g.Endpoint, Peer: env.Target.Endpoints[0], GVR: configMaps}
	o := chaos.Measure(ctx, "gateway", route, faults.SlowClient(g.Endpoint, route, slowClientsPerKind),
		chaos.Options{For: slowClientsFor, Interval: 200 * time.Millisecond, Recover: 30 * time.Second, Seed: time.Now().UnixNano() % 1_000_000})
	Expect(o.Error).To(BeEmpty(), "measuring slow clients through the gateway")
	env.Measure("slowest_request_seconds", o.SlowestAnswer)
	ginkgo.AddReportEntry("note", fmt.Sprintf("%d reads, %d writes through the gateway while %d slow clients were held %v; slowest request %.2f s; %s",
		o.Reads, o.Writes, slowClientsPerKind*3, slowClientsFor, o.SlowestAnswer, strings.Join(o.Observed, "; ")))
	Expect(chaos.Violations([]chaos.Outcome{o})).To(BeEmpty(),
		"slow clients on connections of their own must not be noticed by other clients of the gateway (answers by status: %v)", o.Statuses)
}
