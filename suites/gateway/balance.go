package gateway

import (
	"context"
	"fmt"
	"math"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// repeat is n probes of the same request.
func repeat(n int, req framework.Request) []probe {
	out := make([]probe, n)
	for i := range out {
		out[i] = probe{what: fmt.Sprintf("request %d", i+1), req: req}
	}
	return out
}

func count(where []string) map[string]int {
	out := map[string]int{}
	for _, w := range where {
		out[w]++
	}
	return out
}

// upstreamSubset: a policy's requests go only to its subset.
func upstreamSubset(ctx context.Context, env *framework.Env) {
	for i, e := range env.Target.Endpoints {
		c := base(env)
		c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{policy([]string{server(c, i)}, "", everything())}
		apply(ctx, env, c)
		where, _ := landings(ctx, env, repeat(10, listConfigMaps))
		Expect(count(where)).To(Equal(map[string]int{e.Name: 10}), "upstreamSubset [%s]: where 10 requests landed", server(c, i))
	}
}

// disabledNeverChosen: a disabled server takes no request, even when a policy's subset
// names it; enabling it again brings it back.
func disabledNeverChosen(ctx context.Context, env *framework.Env) {
	c := base(env)
	yes := true
	c.Spec.Servers[1].Disabled = &yes
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{
		policy([]string{server(c, 1), server(c, 0)}, "", everything()),
	}
	apply(ctx, env, c)
	where, _ := landings(ctx, env, repeat(10, listConfigMaps))
	Expect(count(where)).To(Equal(map[string]int{env.Target.Endpoints[0].Name: 10}), "%s is disabled: where 10 requests landed", server(c, 1))
	// Disabled alone in a subset: the policy has no server; the request is not sent to it.
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{policy([]string{server(c, 1)}, "", everything())}
	apply(ctx, env, c)
	where, resps := landings(ctx, env, repeat(3, listConfigMaps))
	for i, w := range where {
		Expect(w).To(BeEmpty(), "the only server of the policy is disabled, yet the request reached %s: %s", w, resps[i])
		Expect(resps[i].Status).To(BeNumerically(">=", 500), "no server to send to: %s", resps[i])
	}
}

// roundRobinFair: N requests over k healthy servers; each gets N/k within a bound. The
// bound: a strict rotation gives exactly N/k (±1); the test allows ±20% of N/k, which a
// uniformly random choice would also pass with probability 0.97 for N=120, k=2 (binomial,
// σ = 5.5 requests, bound 12 = 2.2 σ), and a gateway that sends two thirds of the
// requests to one server fails.
func roundRobinFair(ctx context.Context, env *framework.Env) {
	const n = 120
	where, _ := landings(ctx, env, repeat(n, listConfigMaps))
	counts := count(where)
	k := len(env.Target.Endpoints)
	fair := float64(n) / float64(k)
	for _, e := range env.Target.Endpoints {
		got := counts[e.Name]
		env.Measure("requests_"+e.Name, float64(got))
		Expect(math.Abs(float64(got)-fair)).To(BeNumerically("<=", 0.2*fair),
			"RoundRobin over %d servers: %s took %d of %d requests, want %.0f±20%% (all: %v)", k, e.Name, got, n, fair, counts)
	}
}
