package gateway

import (
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// Requests the rule tests send; none changes anything (creates are dry runs), and any
// answer an apiserver gives (200, 403, 404) shows where the request went.
var (
	listPods        = framework.Request{Path: "/api/v1/namespaces/default/pods?limit=1"}
	listConfigMaps  = framework.Request{Path: "/api/v1/namespaces/default/configmaps?limit=1"}
	listSecrets     = framework.Request{Path: "/api/v1/namespaces/default/secrets?limit=1"}
	listDeployments = framework.Request{Path: "/apis/apps/v1/namespaces/default/deployments?limit=1"}
	getConfigMap    = framework.Request{Path: "/api/v1/namespaces/default/configmaps/skewcheck-gw-named"}
	getOtherCM      = framework.Request{Path: "/api/v1/namespaces/default/configmaps/skewcheck-gw-other"}
	podStatus       = framework.Request{Path: "/api/v1/namespaces/default/pods/skewcheck-gw-none/status"}
	podLog          = framework.Request{Path: "/api/v1/namespaces/default/pods/skewcheck-gw-none/log"}
	deployStatus    = framework.Request{Path: "/apis/apps/v1/namespaces/default/deployments/skewcheck-gw-none/status"}
	createCM        = framework.Request{Method: "POST", Path: "/api/v1/namespaces/default/configmaps?dryRun=All",
		Body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"skewcheck-gw-dry"}}`)}
	version  = framework.Request{Path: "/version"}
	openapi  = framework.Request{Path: "/openapi/v3"}
	asUser   = func(r framework.Request) framework.Request { r.As = framework.AsUser; return r }
	matchRow = func(what string, req framework.Request, match bool) row {
		return row{what: what, req: req, match: match}
	}
)

// row is one assertion of a rule table: the request, and whether the rule matches it.
type row struct {
	what  string
	req   framework.Request
	via   *framework.Endpoint
	match bool
}

// expectRouting applies a configuration where what the rule matches goes to the second
// apiserver and everything else to the first, sends every row's request and checks where
// each landed. All rows are checked before failing, so one run names every wrong row.
func expectRouting(ctx context.Context, env *framework.Env, rule gwapi.DispatchPolicyRule, rows []row) {
	apply(ctx, env, twoWay(env, rule))
	var probes []probe
	for _, r := range rows {
		probes = append(probes, probe{what: r.what, req: r.req, via: r.via})
	}
	where, resps := landings(ctx, env, probes)
	matched, other := env.Target.Endpoints[1].Name, env.Target.Endpoints[0].Name
	var wrong []string
	for i, r := range rows {
		want := map[bool]string{true: matched, false: other}[r.match]
		if where[i] != want {
			wrong = append(wrong, fmt.Sprintf("%s: %s %s landed on %q, want %s (the rule %s it); %s",
				r.what, resps[i].Method, resps[i].Path, where[i], want, map[bool]string{true: "matches", false: "does not match"}[r.match], resps[i]))
		}
	}
	Expect(wrong).To(BeEmpty(), "rule %s: requests it matches must go to its policy's server (%s), the others to the next policy's (%s):\n%s",
		describeRule(rule), matched, other, strings.Join(wrong, "\n"))
}

func describeRule(r gwapi.DispatchPolicyRule) string {
	return fmt.Sprintf("%+v", r)
}

func verbsRule(ctx context.Context, env *framework.Env) {
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Verbs = []string{"list", "create"} }), []row{
		matchRow("list is listed", listConfigMaps, true),
		matchRow("create is listed", createCM, true),
		matchRow("get is not", getConfigMap, false),
		matchRow("watch is not list", framework.Request{Path: "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1"}, false),
	})
}

func groupsAndResourcesRule(ctx context.Context, env *framework.Env) {
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.APIGroups = []string{"apps"} }), []row{
		matchRow("apps is listed", listDeployments, true),
		matchRow("the core group is not", listPods, false),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) {
		r.APIGroups = []string{""}
		r.Resources = []string{"configmaps", "pods/log"}
	}), []row{
		matchRow(`"" is the core group, configmaps listed`, listConfigMaps, true),
		matchRow("pods/log is listed", podLog, true),
		matchRow("pods is not (only its log)", listPods, false),
		matchRow("pods/status is not", podStatus, false),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Resources = []string{"*/status"} }), []row{
		matchRow("*/status: pods/status", podStatus, true),
		matchRow("*/status: deployments/status", deployStatus, true),
		matchRow("*/status: not pods", listPods, false),
		matchRow("*/status: not pods/log", podLog, false),
	})
}

func resourceNamesRule(ctx context.Context, env *framework.Env) {
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) {
		r.Resources = []string{"configmaps"}
		r.ResourceNames = []string{"skewcheck-gw-named"}
	}), []row{
		matchRow("the named configmap", getConfigMap, true),
		matchRow("another configmap", getOtherCM, false),
		matchRow("a list names no object", listConfigMaps, false),
	})
}

func subjectsRule(ctx context.Context, env *framework.Env) {
	user := env.Target.Endpoints[0].UserName
	sa := serviceAccountEndpoint(ctx, env, "skewcheck-gw-rules")
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Users = []string{user} }), []row{
		matchRow("users: the listed user", asUser(listConfigMaps), true),
		matchRow("users: another user (admin)", listConfigMaps, false),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) {
		r.ServiceAccounts = []gwapi.ServiceAccountRef{{Namespace: "default", Name: "skewcheck-gw-rules"}}
	}), []row{
		{what: "serviceAccounts: the listed service account (bearer token)", req: listConfigMaps, via: sa, match: true},
		matchRow("serviceAccounts: a user is not it", asUser(listConfigMaps), false),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.UserGroups = []string{"system:serviceaccounts"} }), []row{
		{what: "userGroups: a member", req: listConfigMaps, via: sa, match: true},
		matchRow("userGroups: not a member", asUser(listConfigMaps), false),
	})
	expectRouting(ctx, env, resourceRule(func(*gwapi.DispatchPolicyRule) {}), []row{
		matchRow("users and serviceAccounts empty: the user", asUser(listConfigMaps), true),
		matchRow("users and serviceAccounts empty: admin", listConfigMaps, true),
		{what: "users and serviceAccounts empty: a service account", req: listConfigMaps, via: sa, match: true},
	})
}

func nonResourceRule(ctx context.Context, env *framework.Env) {
	expectRouting(ctx, env, gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/openapi/*"}}, []row{
		matchRow("/openapi/* matches /openapi/v3", openapi, true),
		matchRow("/openapi/* does not match /version", version, false),
		matchRow("a URL rule does not match resources", listConfigMaps, false),
	})
	expectRouting(ctx, env, gwapi.DispatchPolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/version"}}, []row{
		matchRow("/version exactly", version, true),
		matchRow("/version without * is no prefix: not /version/x", framework.Request{Path: "/version/x"}, false),
		matchRow("not /openapi/v3", openapi, false),
	})
}

// negationTable: each row of the contract's table on negation is one assertion.
func negationTable(ctx context.Context, env *framework.Env) {
	res := func(entries ...string) gwapi.DispatchPolicyRule {
		return resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Resources = entries })
	}
	expectRouting(ctx, env, res("*", "-pods"), []row{
		matchRow(`["*","-pods"]: "*" overrides the other entries, pods match`, listPods, true),
	})
	expectRouting(ctx, env, res("-pods", "-deployments"), []row{
		matchRow(`["-pods","-deployments"] does not match pods`, listPods, false),
		matchRow(`["-pods","-deployments"] does not match deployments`, listDeployments, false),
		matchRow(`["-pods","-deployments"] matches configmaps`, listConfigMaps, true),
	})
	expectRouting(ctx, env, res("configmaps", "-configmaps"), []row{
		matchRow(`mixed ["configmaps","-configmaps"] ignores the negated entry: configmaps match`, listConfigMaps, true),
	})
	expectRouting(ctx, env, res("pods", "-deployments"), []row{
		matchRow(`mixed ["pods","-deployments"] is ["pods"]: pods match`, listPods, true),
		matchRow(`mixed ["pods","-deployments"] is ["pods"]: secrets do not`, listSecrets, false),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Verbs = []string{"-list", "-watch"} }), []row{
		matchRow(`verbs ["-list","-watch"] do not match list`, listConfigMaps, false),
		matchRow(`verbs ["-list","-watch"] match get`, getConfigMap, true),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.APIGroups = []string{"-apps"} }), []row{
		matchRow(`apiGroups ["-apps"] do not match apps`, listDeployments, false),
		matchRow(`apiGroups ["-apps"] match the core group`, listPods, true),
	})
	user := env.Target.Endpoints[0].UserName
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Users = []string{"-" + user} }), []row{
		matchRow(`users ["-<user>"] do not match that user`, asUser(listConfigMaps), false),
		matchRow(`users ["-<user>"] match another (admin)`, listConfigMaps, true),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) { r.UserGroups = []string{"-system:masters"} }), []row{
		matchRow(`userGroups ["-system:masters"] do not match a member (admin)`, listConfigMaps, false),
		matchRow(`userGroups ["-system:masters"] match a non-member`, asUser(listConfigMaps), true),
	})
	expectRouting(ctx, env, resourceRule(func(r *gwapi.DispatchPolicyRule) {
		r.Resources = []string{"configmaps"}
		r.ResourceNames = []string{"-skewcheck-gw-named"}
	}), []row{
		matchRow(`resourceNames ["-n"] do not match n`, getConfigMap, false),
		matchRow(`resourceNames ["-n"] match another name`, getOtherCM, true),
	})
}

// firstMatch: two policies both match; the first in the list takes the request.
func firstMatch(ctx context.Context, env *framework.Env) {
	c := base(env)
	cm := resourceRule(func(r *gwapi.DispatchPolicyRule) { r.Resources = []string{"configmaps"} })
	c.Spec.DispatchPolicies = []gwapi.DispatchPolicy{
		policy([]string{server(c, 1)}, "", cm),
		policy([]string{server(c, 0)}, "", cm),
		policy([]string{server(c, 0)}, "", everything()),
	}
	apply(ctx, env, c)
	where, resps := landings(ctx, env, []probe{{what: "configmaps", req: listConfigMaps}, {what: "configmaps again", req: getConfigMap}})
	for i, w := range where {
		Expect(w).To(Equal(env.Target.Endpoints[1].Name), "two policies match configmaps; the first (to %s) must take it: %s", env.Target.Endpoints[1].Name, resps[i])
	}
	c.Spec.DispatchPolicies[0], c.Spec.DispatchPolicies[1] = c.Spec.DispatchPolicies[1], c.Spec.DispatchPolicies[0]
	apply(ctx, env, c)
	where, resps = landings(ctx, env, []probe{{what: "configmaps", req: listConfigMaps}, {what: "configmaps again", req: getConfigMap}})
	for i, w := range where {
		Expect(w).To(Equal(env.Target.Endpoints[0].Name), "with the policies swapped the first is now to %s: %s", env.Target.Endpoints[0].Name, resps[i])
	}
}
