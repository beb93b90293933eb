package gateway

import (
	"slices"
	"strings"
	"testing"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// entries splits a rule's list as the fuzzer writes it: comma-separated, "~" for nil.
func entries(s string) []string {
	if s == "~" {
		return nil
	}
	return strings.Split(s, ",")
}

// ruleFields are the lists of a rule that take "*" and "-" alike (nonResourceURLs cannot
// be negated; validation refuses it).
var ruleFields = []struct {
	name string
	at   func(*gwapi.DispatchPolicyRule) *[]string
}{
	{"verbs", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.Verbs }},
	{"apiGroups", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.APIGroups }},
	{"resources", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.Resources }},
	{"resourceNames", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.ResourceNames }},
	{"users", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.Users }},
	{"userGroups", func(r *gwapi.DispatchPolicyRule) *[]string { return &r.UserGroups }},
}

func with(r gwapi.DispatchPolicyRule, at func(*gwapi.DispatchPolicyRule) *[]string, list []string) gwapi.DispatchPolicyRule {
	*at(&r) = list
	return r
}

// FuzzRuleMatching checks the rule table (rules.go, TestRuleMatching's negation table) on
// any rule and any request:
//   - a catch-all rule (verbs, apiGroups, resources and nonResourceURLs all ["*"]) matches
//     every request of every user;
//   - "*" in a list overrides its other entries;
//   - a list mixing positive and negated entries is its positive entries;
//   - a list of only negated entries matches exactly what the list of those entries
//     would not ("-a,-b matches neither a nor b, and the rest");
//   - the order of a list's entries does not matter.
func FuzzRuleMatching(f *testing.F) {
	type seed struct{ verbs, groups, resources, names, users, userGroups, urls, method, path, user, groupsOfUser string }
	for _, s := range []seed{
		{"list,create", "*", "*", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/configmaps?limit=1", "alice", "dev,system:authenticated"},
		{"*", "apps", "*", "~", "~", "~", "~", "GET", "/apis/apps/v1/namespaces/default/deployments", "alice", "dev"},
		{"*", "", "configmaps,pods/log", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/pods/p/log", "alice", "dev"},
		{"*", "*", "*/status", "~", "~", "~", "~", "PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", "alice", "dev"},
		{"*", "*", "configmaps", "skewcheck-gw-named", "~", "~", "~", "GET", "/api/v1/namespaces/default/configmaps/skewcheck-gw-named", "bob", "ops"},
		{"*", "*", "*", "~", "system:node:*", "~", "~", "GET", "/api/v1/pods", "system:node:n1", "system:nodes"},
		{"*", "*", "*", "~", "~", "-ops", "~", "GET", "/api/v1/pods", "bob", "ops,system:authenticated"},
		{"*", "~", "~", "~", "~", "~", "/openapi/*", "GET", "/openapi/v3", "alice", "dev"},
		{"get", "~", "~", "~", "~", "~", "/version", "GET", "/version", "alice", "dev"},
		{"*", "*", "-pods,-deployments", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/configmaps", "alice", "dev"},
		{"*", "*", "pods,-pods", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/pods", "alice", "dev"},
		{"-list,-watch", "*", "*", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/pods?watch=1", "alice", "dev"},
		{"*", "-apps", "*", "-p1", "-alice", "~", "~", "GET", "/api/v1/namespaces/default/pods/p1", "alice", "dev"},
		{"*", "*", "*", "~", "~", "~", "*", "GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp1", "alice", "dev"},
		{"-*", "*", "*", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/pods/p1", "alice", "dev"},
		{"*", "*", "-*", "~", "~", "~", "~", "GET", "/api/v1/namespaces/default/pods/p1", "alice", "dev"},
		{"*", "*", "*", "~", "-*", "-*", "~", "GET", "/api/v1/namespaces/default/pods/p1", "alice", "dev"},
	} {
		f.Add(s.verbs, s.groups, s.resources, s.names, s.users, s.userGroups, s.urls, s.method, s.path, s.user, s.groupsOfUser)
	}
	f.Fuzz(func(t *testing.T, verbs, groups, resources, names, users, userGroups, urls, method, target, user, groupsOfUser string) {
		path, query, _ := strings.Cut(target, "?")
		req, ok := fuzzRequest(method, path, query)
		if !ok {
			return
		}
		a := attributes{user: user, groups: entries(groupsOfUser), info: parseRequestInfo(req)}
		r := gwapi.DispatchPolicyRule{Verbs: entries(verbs), APIGroups: entries(groups), Resources: entries(resources),
			ResourceNames: entries(names), Users: entries(users), UserGroups: entries(userGroups), NonResourceURLs: entries(urls)}
		match := func(r gwapi.DispatchPolicyRule) bool { return compileRule(r, Defects{}).matches(a) }
		star := []string{"*"}
		if !match(gwapi.DispatchPolicyRule{Verbs: star, APIGroups: star, Resources: star, NonResourceURLs: star}) {
			t.Fatalf("the catch-all rule does not match %s %s as %q", method, target, user)
		}
		got := match(r)
		for _, field := range ruleFields {
			list := *field.at(&r)
			var positive, negated []string
			for _, e := range list {
				if n, ok := strings.CutPrefix(e, "-"); ok {
					negated = append(negated, n)
				} else if e != "*" {
					positive = append(positive, e)
				}
			}
			whenStar := match(with(r, field.at, star))
			reversed := slices.Clone(list)
			slices.Reverse(reversed)
			switch {
			case match(with(r, field.at, reversed)) != got:
				t.Fatalf("%s %q reversed changes the match of %s %s (%v)", field.name, list, method, target, got)
			case slices.Contains(list, "*"):
				if got != whenStar {
					t.Fatalf("%s %q: match %v, but [\"*\"] gives %v", field.name, list, got, whenStar)
				}
			case len(positive) > 0 && len(negated) > 0:
				if p := match(with(r, field.at, positive)); got != p {
					t.Fatalf("%s %q on %s %s as %q: match %v, but its positive entries %q give %v", field.name, list, method, target, user, got, positive, p)
				}
			case len(negated) > 0:
				if listed := match(with(r, field.at, negated)); got != (whenStar && !listed) {
					t.Fatalf("%s %q on %s %s as %q %v: match %v, want %v: [\"*\"] gives %v and %q gives %v",
						field.name, list, method, target, user, a.groups, got, whenStar && !listed, whenStar, negated, listed)
				}
			}
		}
	})
}
