package gateway

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// noPolicyMatches: KubeGateway's design sends a request only where a dispatch policy
// says, so a request no policy matches has nowhere to go: the gateway answers it itself,
// and no apiserver ever sees it. The design names no status code; skewcheck's contract is
// 403 with a metav1.Status of reason Forbidden (whose message should name what no policy
// matched): the request is the client's (or the configuration's) to fix, as RBAC's
// refusals are. A 5xx says the server failed: client-go and kubectl retry it in vain, and
// it counts in every error-rate alert.
func noPolicyMatches(ctx context.Context, env *framework.Env) {
	c := base(env)
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{policy(nil, "", resourceRule(func(r *gwapi.DispatchPolicyRule) {
		r.APIGroups, r.Resources = []string{""}, []string{"configmaps"}
	}))}
	apply(ctx, env, c)
	where, resps := landings(ctx, env, []probe{{what: "configmaps (matched)", req: listConfigMaps}})
	Expect(where[0]).NotTo(BeEmpty(), "the matched request reached no apiserver: %s", resps[0])
	g := env.Target.Gateway.Endpoint
	r := g.Do(ctx, listSecrets)
	found := servedBy(ctx, env, []string{r.AuditID}, 2*time.Second)
	Expect(found[r.AuditID]).To(BeEmpty(), "a request no policy matches reached %s: %s", found[r.AuditID], r)
	Expect(r.Status).To(BeNumerically("<", 500),
		"secrets, which no policy matches, answered with a server error: a request no policy admits is the client's, not a server failure; a 5xx makes client-go and kubectl retry it and counts in error-rate alerts. Answer 403 Forbidden naming the missing policy: %s", r)
	Expect(r).To(framework.BeStatus(403, "Forbidden"), "secrets, which no policy matches: want 403 with a JSON Status of reason Forbidden, which kubectl shows")
}

// invalidRefused: documents the contract forbids are refused by the apply, with a message
// naming what is wrong, and the configuration before keeps serving.
func invalidRefused(ctx context.Context, env *framework.Env) {
	cases := []struct {
		what    string
		edit    func(*gwapi.UpstreamCluster)
		mention string
	}{
		{"a resource r/*", func(c *gwapi.UpstreamCluster) {
			c.Spec.DispatchPolicies[0].Rules[0].Resources = []string{"pods/*"}
		}, "pods/*"},
		{"an unknown flow-control schema name", func(c *gwapi.UpstreamCluster) {
			c.Spec.DispatchPolicies[0].FlowControlSchemaName = "no-such-schema"
		}, "no-such-schema"},
		{"no servers", func(c *gwapi.UpstreamCluster) {
			c.Spec.Servers = nil
			c.Spec.DispatchPolicies[0].UpstreamSubset = nil
		}, "servers"},
		{"a negated service account", func(c *gwapi.UpstreamCluster) {
			c.Spec.DispatchPolicies[0].Rules[0].ServiceAccounts = []gwapi.ServiceAccountRef{{Namespace: "default", Name: "-skewcheck"}}
		}, "serviceAccounts"},
		{"a negated non-resource URL", func(c *gwapi.UpstreamCluster) {
			c.Spec.DispatchPolicies[0].Rules[0].NonResourceURLs = []string{"-/version"}
		}, "nonResourceURLs"},
	}
	g := env.Target.Gateway.Endpoint
	for _, tc := range cases {
		c := base(env)
		tc.edit(c)
		err := tryApply(ctx, env, c)
		Expect(err).To(HaveOccurred(), "an UpstreamCluster with %s was applied; it must be refused", tc.what)
		Expect(strings.ToLower(err.Error())).To(ContainSubstring(strings.ToLower(tc.mention)), "the refusal of %s must name %q", tc.what, tc.mention)
		Expect(g.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "after refusing %s the previous configuration must keep serving", tc.what)
	}
}
