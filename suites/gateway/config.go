package gateway

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// base is the target's first configuration, to change: its servers are the target's
// endpoints, in order.
func base(env *framework.Env) *gwapi.UpstreamCluster {
	var c gwapi.UpstreamCluster
	Expect(yaml.Unmarshal(env.Target.Gateway.Template, &c)).To(Succeed(), "the gateway's template document")
	Expect(c.Spec.Servers).To(HaveLen(len(env.Target.Endpoints)), "the template lists one server per endpoint")
	return &c
}

// server is the endpoint URL of the target's i-th apiserver as the documents name it.
func server(c *gwapi.UpstreamCluster, i int) string { return c.Spec.Servers[i].Endpoint }

// policy sends what rules match to the given servers (all when none), with a schema.
func policy(subset []string, schema string, rules ...gwapi.DispatchPolicyRule) gwapi.DispatchPolicy {
	return gwapi.DispatchPolicy{Strategy: gwapi.RoundRobin, UpstreamSubset: subset, FlowControlSchemaName: schema, Rules: rules}
}

// everything is a rule that matches every request.
func everything() gwapi.DispatchPolicyRule {
	return gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, NonResourceURLs: []string{"*"}}
}

// resourceRule matches every verb, group and resource unless the edit narrows it.
func resourceRule(edit func(*gwapi.DispatchPolicyRule)) gwapi.DispatchPolicyRule {
	r := gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	edit(&r)
	return r
}

// apply makes docs the gateway's configuration for the rest of the test; the template is
// applied again when the test ends, so the next starts from it.
func apply(ctx context.Context, env *framework.Env, docs ...*gwapi.UpstreamCluster) {
	Expect(tryApply(ctx, env, docs...)).To(Succeed(), "applying the gateway configuration")
}

func tryApply(ctx context.Context, env *framework.Env, docs ...*gwapi.UpstreamCluster) error {
	g := env.Target.Gateway
	var raw [][]byte
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		Expect(err).NotTo(HaveOccurred())
		raw = append(raw, b)
	}
	ginkgo.DeferCleanup(func(ctx context.Context) {
		Expect(g.Apply(ctx, [][]byte{g.Template})).To(Succeed(), "restoring the gateway's first configuration")
	})
	return g.Apply(ctx, raw)
}

// twoWay is the configuration most tests use: requests the rule matches go to the second
// server, every other request to the first. Where a request landed says whether the rule
// matched it.
func twoWay(env *framework.Env, rule gwapi.DispatchPolicyRule) *gwapi.UpstreamCluster {
	c := base(env)
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{
		policy([]string{server(c, 1)}, "", rule),
		policy([]string{server(c, 0)}, "", everything()),
	}
	return c
}
