package gateway

import (
	"net/http/httptest"
	"testing"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

func req(method, path string) requestInfo {
	return parseRequestInfo(httptest.NewRequest(method, path, nil))
}

// TestRuleMatching: each row of the contract's rule table is one case.
func TestRuleMatching(t *testing.T) {
	all := func(r gwapi.DispatchPolicyRule) gwapi.DispatchPolicyRule {
		if r.Verbs == nil {
			r.Verbs = []string{"*"}
		}
		if r.APIGroups == nil && r.NonResourceURLs == nil {
			r.APIGroups = []string{"*"}
		}
		if r.Resources == nil && r.NonResourceURLs == nil {
			r.Resources = []string{"*"}
		}
		return r
	}
	pods := req("GET", "/api/v1/namespaces/default/pods")
	pod := req("GET", "/api/v1/namespaces/default/pods/p1")
	podLog := req("GET", "/api/v1/namespaces/default/pods/p1/log")
	podStatus := req("GET", "/api/v1/namespaces/default/pods/p1/status")
	deployments := req("GET", "/apis/apps/v1/namespaces/default/deployments")
	deploymentStatus := req("PUT", "/apis/apps/v1/namespaces/default/deployments/d/status")
	configmaps := req("GET", "/api/v1/namespaces/default/configmaps")
	createCM := req("POST", "/api/v1/namespaces/default/configmaps")
	watchCM := req("GET", "/api/v1/namespaces/default/configmaps?watch=1")
	cmByField := req("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dc1")
	version := req("GET", "/version")
	healthz := req("GET", "/healthz/etcd")
	user := func(name string, groups ...string) attributes { return attributes{user: name, groups: groups} }
	alice, bob := user("alice", "dev", "system:authenticated"), user("bob", "ops", "system:authenticated")
	sa := user("system:serviceaccount:kube-system:deployer", "system:serviceaccounts")
	node := user("system:node:n1", "system:nodes")

	cases := []struct {
		name string
		rule gwapi.DispatchPolicyRule
		who  attributes
		info requestInfo
		want bool
	}{
		{"verbs: listed verb", all(gwapi.DispatchPolicyRule{Verbs: []string{"list"}}), alice, pods, true},
		{"verbs: other verb", all(gwapi.DispatchPolicyRule{Verbs: []string{"list"}}), alice, pod, false},
		{"verbs: watch is its own verb", all(gwapi.DispatchPolicyRule{Verbs: []string{"watch"}}), alice, watchCM, true},
		{"verbs: create", all(gwapi.DispatchPolicyRule{Verbs: []string{"create"}}), alice, createCM, true},
		{"verbs: list with a name field selector is still list", all(gwapi.DispatchPolicyRule{Verbs: []string{"list"}, ResourceNames: []string{"c1"}}), alice, cmByField, true},
		{"apiGroups: core is \"\"", all(gwapi.DispatchPolicyRule{APIGroups: []string{""}}), alice, pods, true},
		{"apiGroups: apps not core", all(gwapi.DispatchPolicyRule{APIGroups: []string{"apps"}}), alice, pods, false},
		{"resources: r does not match r/sub", all(gwapi.DispatchPolicyRule{Resources: []string{"pods"}}), alice, podLog, false},
		{"resources: r/sub", all(gwapi.DispatchPolicyRule{Resources: []string{"pods/log"}}), alice, podLog, true},
		{"resources: */sub matches every resource's sub", all(gwapi.DispatchPolicyRule{Resources: []string{"*/status"}}), alice, deploymentStatus, true},
		{"resources: */sub not another sub", all(gwapi.DispatchPolicyRule{Resources: []string{"*/status"}}), alice, podLog, false},
		{"resources: */sub not the resource", all(gwapi.DispatchPolicyRule{Resources: []string{"*/status"}}), alice, pod, false},
		{"resourceNames: listed", all(gwapi.DispatchPolicyRule{ResourceNames: []string{"p1"}}), alice, podStatus, true},
		{"resourceNames: a list has no name", all(gwapi.DispatchPolicyRule{ResourceNames: []string{"p1"}}), alice, pods, false},
		{"resourceNames: empty matches all", all(gwapi.DispatchPolicyRule{}), alice, pods, true},
		{"users: listed", all(gwapi.DispatchPolicyRule{Users: []string{"alice"}}), alice, pods, true},
		{"users: not listed", all(gwapi.DispatchPolicyRule{Users: []string{"alice"}}), bob, pods, false},
		{"users: prefix*", all(gwapi.DispatchPolicyRule{Users: []string{"system:node:*"}}), node, pods, true},
		{"users and serviceAccounts empty: every user", all(gwapi.DispatchPolicyRule{}), sa, pods, true},
		{"serviceAccounts: listed", all(gwapi.DispatchPolicyRule{ServiceAccounts: []gwapi.ServiceAccountRef{{Namespace: "kube-system", Name: "deployer"}}}), sa, pods, true},
		{"serviceAccounts: a user is not it", all(gwapi.DispatchPolicyRule{ServiceAccounts: []gwapi.ServiceAccountRef{{Namespace: "kube-system", Name: "deployer"}}}), alice, pods, false},
		{"users or serviceAccounts", all(gwapi.DispatchPolicyRule{Users: []string{"alice"}, ServiceAccounts: []gwapi.ServiceAccountRef{{Namespace: "kube-system", Name: "deployer"}}}), alice, pods, true},
		{"userGroups: any group listed", all(gwapi.DispatchPolicyRule{UserGroups: []string{"ops", "dev"}}), alice, pods, true},
		{"userGroups: none listed", all(gwapi.DispatchPolicyRule{UserGroups: []string{"ops"}}), alice, pods, false},
		{"userGroups: negated, in none", all(gwapi.DispatchPolicyRule{UserGroups: []string{"-ops"}}), alice, pods, true},
		{"userGroups: negated, in one", all(gwapi.DispatchPolicyRule{UserGroups: []string{"-ops"}}), bob, pods, false},
		{"nonResourceURLs: exact", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/version"}}, alice, version, true},
		{"nonResourceURLs: prefix*", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/healthz*"}}, alice, healthz, true},
		{"nonResourceURLs: a resource rule does not match a URL", all(gwapi.DispatchPolicyRule{}), alice, version, false},
		{"nonResourceURLs: a URL rule does not match a resource", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, alice, pods, false},
		{"fields are AND-ed", all(gwapi.DispatchPolicyRule{Verbs: []string{"list"}, Users: []string{"bob"}}), alice, pods, false},
		// The negation table.
		{"* overrides the other entries", all(gwapi.DispatchPolicyRule{Resources: []string{"*", "-pods"}}), alice, pods, true},
		{"-a,-b matches neither a", all(gwapi.DispatchPolicyRule{Resources: []string{"-pods", "-deployments"}}), alice, pods, false},
		{"-a,-b matches neither b", all(gwapi.DispatchPolicyRule{Resources: []string{"-pods", "-deployments"}}), alice, deployments, false},
		{"-a,-b matches the rest", all(gwapi.DispatchPolicyRule{Resources: []string{"-pods", "-deployments"}}), alice, configmaps, true},
		{"-r does not exclude r/sub", all(gwapi.DispatchPolicyRule{Resources: []string{"-pods"}}), alice, podLog, true},
		{"mixed: the negated entries are ignored (listed)", all(gwapi.DispatchPolicyRule{Resources: []string{"pods", "-pods"}}), alice, pods, true},
		{"mixed: the negated entries are ignored (not listed)", all(gwapi.DispatchPolicyRule{Resources: []string{"pods", "-deployments"}}), alice, configmaps, false},
		{"negated verbs", all(gwapi.DispatchPolicyRule{Verbs: []string{"-list", "-watch"}}), alice, pods, false},
		{"negated verbs, other verb", all(gwapi.DispatchPolicyRule{Verbs: []string{"-list", "-watch"}}), alice, pod, true},
		{"negated users", all(gwapi.DispatchPolicyRule{Users: []string{"-alice"}}), alice, pods, false},
		{"negated users, other user", all(gwapi.DispatchPolicyRule{Users: []string{"-alice"}}), bob, pods, true},
		{"negated apiGroups", all(gwapi.DispatchPolicyRule{APIGroups: []string{"-apps"}}), alice, deployments, false},
		{"negated resourceNames", all(gwapi.DispatchPolicyRule{ResourceNames: []string{"-p1"}}), alice, pod, false},
		// "-*" negates everything in every list, as it did already for users (FuzzRuleMatching).
		{"-* verbs match nothing", all(gwapi.DispatchPolicyRule{Verbs: []string{"-*"}}), alice, pods, false},
		{"-* resources match nothing", all(gwapi.DispatchPolicyRule{Resources: []string{"-*"}}), alice, pods, false},
		{"-* userGroups match nobody", all(gwapi.DispatchPolicyRule{UserGroups: []string{"-*"}}), alice, pods, false},
		{"-* users match nobody", all(gwapi.DispatchPolicyRule{Users: []string{"-*"}}), alice, pods, false},
	}
	for _, c := range cases {
		r := compileRule(c.rule, Defects{})
		c.who.info = c.info
		if got := r.matches(c.who); got != c.want {
			t.Errorf("%s: rule %+v on %s %q as %s: match %v, want %v", c.name, c.rule, c.info.Verb, c.info.Path, c.who.user, got, c.want)
		}
	}
}

// TestNegationOredDefect: the defect really makes ["-a","-b"] match a (and b).
func TestNegationOredDefect(t *testing.T) {
	r := compileRule(gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"-pods", "-deployments"}}, Defects{NegationOred: true})
	if !r.matches(attributes{user: "alice", info: req("GET", "/api/v1/pods")}) {
		t.Error("with negation-or, [-pods,-deployments] must match pods (the defect)")
	}
}

func TestFirstMatchWins(t *testing.T) {
	c := &cluster{policies: []*policy{
		{label: "0", rules: []rule{compileRule(gwapi.DispatchPolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, Defects{})}},
		{label: "1", rules: []rule{compileRule(gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, Defects{})}},
	}}
	if p := c.match(attributes{user: "a", info: req("GET", "/api/v1/namespaces/d/pods/p")}); p == nil || p.label != "0" {
		t.Errorf("get pods: policy %v, want 0", p)
	}
	if p := c.match(attributes{user: "a", info: req("GET", "/api/v1/namespaces/d/pods")}); p == nil || p.label != "1" {
		t.Errorf("list pods: policy %v, want 1", p)
	}
	if p := c.match(attributes{user: "a", info: req("GET", "/version")}); p != nil {
		t.Errorf("/version: policy %v, want none", p.label)
	}
}

// TestRuleDefects: each rule defect turns one row of the contract's table the other way,
// the row the gateway profile's test of that field asserts.
func TestRuleDefects(t *testing.T) {
	resources := func(r gwapi.DispatchPolicyRule) gwapi.DispatchPolicyRule {
		r.APIGroups, r.Resources = []string{"*"}, []string{"*"}
		if r.Verbs == nil {
			r.Verbs = []string{"*"}
		}
		return r
	}
	for _, tc := range []struct {
		defect string
		rule   gwapi.DispatchPolicyRule
		who    string
		info   requestInfo
		want   bool // as shipped; the defect gives the opposite
	}{
		{"ignore-verbs", resources(gwapi.DispatchPolicyRule{Verbs: []string{"list", "create"}}), "alice", req("GET", "/api/v1/namespaces/d/configmaps/c"), false},
		{"ignore-subresource", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"configmaps", "pods/log"}}, "alice", req("GET", "/api/v1/namespaces/d/pods/p/log"), true},
		{"ignore-subresource", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, "alice", req("GET", "/api/v1/namespaces/d/pods/p/status"), false},
		{"names-match-lists", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"configmaps"}, ResourceNames: []string{"c"}}, "alice", req("GET", "/api/v1/namespaces/d/configmaps"), false},
		{"ignore-subjects", resources(gwapi.DispatchPolicyRule{Users: []string{"bob"}}), "alice", req("GET", "/api/v1/namespaces/d/configmaps"), false},
		{"ignore-subjects", resources(gwapi.DispatchPolicyRule{UserGroups: []string{"system:serviceaccounts"}}), "alice", req("GET", "/api/v1/namespaces/d/configmaps"), false},
		{"url-rules-match-resources", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/openapi/*"}}, "alice", req("GET", "/api/v1/namespaces/d/configmaps"), false},
		{"url-entries-are-prefixes", gwapi.DispatchPolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/version"}}, "alice", req("GET", "/version/x"), false},
	} {
		d, err := ParseDefects([]string{tc.defect})
		if err != nil {
			t.Fatal(err)
		}
		a := attributes{user: tc.who, groups: []string{"system:authenticated"}, info: tc.info}
		if got := compileRule(tc.rule, Defects{}).matches(a); got != tc.want {
			t.Errorf("as shipped, rule %+v on %s %s: match %v, want %v", tc.rule, tc.info.Verb, tc.info.Path, got, tc.want)
		}
		if got := compileRule(tc.rule, d).matches(a); got == tc.want {
			t.Errorf("with %s, rule %+v on %s %s: match %v, want %v (the defect)", tc.defect, tc.rule, tc.info.Verb, tc.info.Path, got, !tc.want)
		}
	}
}

// TestLastMatchWinsDefect: with the defect the catch-all after a matching policy takes
// the request.
func TestLastMatchWinsDefect(t *testing.T) {
	c := &cluster{lastMatchWins: true, policies: []*policy{
		{label: "0", rules: []rule{compileRule(gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"configmaps"}}, Defects{})}},
		{label: "1", rules: []rule{compileRule(gwapi.DispatchPolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, Defects{})}},
	}}
	if p := c.match(attributes{user: "a", info: req("GET", "/api/v1/namespaces/d/configmaps")}); p == nil || p.label != "1" {
		t.Errorf("with last-match-wins, configmaps: policy %v, want 1 (the defect)", p)
	}
}
