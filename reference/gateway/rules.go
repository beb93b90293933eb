package gateway

import (
	"strings"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// The meaning of a rule's lists, field by field. KubeGateway documents the same shape; where
// its code and its documentation disagree, the documentation (and this gateway's contract)
// wins:
//
//   - "*" anywhere in a list matches everything; the other entries are then ignored.
//     "-*" negates it: alone it matches nothing, in every list.
//   - A "-" prefix negates an entry. A list of only negated entries matches everything
//     except every one of them: ["-pods", "-deployments"] matches neither pods nor
//     deployments. (KubeGateway's code ORs the negations, so that list matches both.)
//   - A list that mixes positive and negated entries ignores the negated ones: ["pods",
//     "-pods/log"] is ["pods"].
//   - An empty list: verbs, apiGroups, resources and nonResourceURLs match nothing (as in
//     RBAC and KubeGateway's documentation; validation refuses a rule they would make
//     useless); resourceNames and userGroups match everything; users and serviceAccounts
//     both empty match every user.
//   - resources are compared with "resource" or "resource/subresource": "pods" does not
//     match pods/status, and so "-pods" does not exclude it. "*/status" matches the status
//     subresource of every resource. "pods/*" is refused by validation (KubeGateway's rule):
//     list the subresources.
//   - users and nonResourceURLs also take a trailing "*" as a prefix match
//     ("system:node:*", "/apis/*"), as KubeGateway does.
//   - serviceAccounts {namespace, name} match the user system:serviceaccount:<ns>:<name>;
//     they and nonResourceURLs cannot be negated (validation refuses it).
//   - userGroups are matched against all of the user's groups: a positive list matches if
//     any group is listed, a negated-only list if none is.

// list is one compiled field of a rule.
type list struct {
	all      bool
	positive []string
	negated  []string
	// orNegations is the NegationOred defect.
	orNegations bool
}

func compileList(entries []string, d Defects) list {
	l := list{orNegations: d.NegationOred}
	for _, e := range entries {
		switch {
		case e == "*":
			l.all = true
		case strings.HasPrefix(e, "-"):
			l.negated = append(l.negated, e[1:])
		default:
			l.positive = append(l.positive, e)
		}
	}
	return l
}

func (l list) empty() bool { return !l.all && len(l.positive) == 0 && len(l.negated) == 0 }

// matchAny reports whether the list matches a request with these values (one value for
// most fields, the user's groups for userGroups). eq compares one entry with one value.
// An empty list matches nothing; callers decide where empty means everything.
func (l list) matchAny(values []string, eq func(entry, value string) bool) bool {
	if l.all {
		return true
	}
	anyListed := func(entries []string) bool {
		for _, e := range entries {
			for _, v := range values {
				if e == "*" || eq(e, v) { // "*" is only ever a negated entry here ("-*")
					return true
				}
			}
		}
		return false
	}
	if len(l.positive) > 0 {
		return anyListed(l.positive)
	}
	if len(l.negated) > 0 && l.orNegations {
		for _, e := range l.negated {
			if !anyListed([]string{e}) {
				return true
			}
		}
		return false
	}
	if len(l.negated) > 0 {
		return !anyListed(l.negated)
	}
	return false
}

func (l list) match(value string) bool { return l.matchAny([]string{value}, equal) }

func equal(entry, value string) bool { return entry == value }

// prefixOrEqual treats a trailing "*" as "anything after this prefix".
func prefixOrEqual(entry, value string) bool {
	if p, ok := strings.CutSuffix(entry, "*"); ok {
		return strings.HasPrefix(value, p)
	}
	return entry == value
}

// resourceEqual compares an entry with "resource" or "resource/subresource"; "*/sub"
// matches sub of any resource.
func resourceEqual(entry, value string) bool {
	if sub, ok := strings.CutPrefix(entry, "*/"); ok {
		_, reqSub, has := strings.Cut(value, "/")
		return has && reqSub == sub
	}
	return entry == value
}

// rule is a compiled DispatchPolicyRule.
type rule struct {
	verbs, apiGroups, resources, resourceNames, users, userGroups, nonResourceURLs list
	serviceAccounts                                                                []string // user names
	// The IgnoreSubresource, NamesMatchLists, IgnoreSubjects and URLEntriesArePrefixes defects.
	ignoreSubresource, namesMatchLists, ignoreSubjects, urlPrefixes bool
}

func compileRule(r gwapi.DispatchPolicyRule, d Defects) rule {
	c := rule{
		verbs: compileList(r.Verbs, d), apiGroups: compileList(r.APIGroups, d), resources: compileList(r.Resources, d),
		resourceNames: compileList(r.ResourceNames, d), users: compileList(r.Users, d), userGroups: compileList(r.UserGroups, d),
		nonResourceURLs: compileList(r.NonResourceURLs, d),
	}
	for _, sa := range r.ServiceAccounts {
		c.serviceAccounts = append(c.serviceAccounts, serviceAccountUser(sa.Namespace, sa.Name))
	}
	if d.IgnoreVerbs { // the defect GW-010 must catch
		c.verbs = list{all: true}
	}
	if d.URLRulesMatchResources && c.apiGroups.empty() && c.resources.empty() { // GW-014 must catch it
		c.apiGroups, c.resources = list{all: true}, list{all: true}
	}
	c.ignoreSubresource, c.namesMatchLists, c.ignoreSubjects = d.IgnoreSubresource, d.NamesMatchLists, d.IgnoreSubjects
	c.urlPrefixes = d.URLEntriesArePrefixes
	return c
}

func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// attributes are what a rule looks at: who asks, and what for.
type attributes struct {
	user   string
	groups []string
	info   requestInfo
}

func (r rule) matches(a attributes) bool {
	if !r.verbs.match(a.info.Verb) {
		return false
	}
	// The IgnoreSubjects defect skips who asks (GW-013 must catch it).
	if !r.ignoreSubjects && (!r.userMatches(a.user) || (!r.userGroups.empty() && !r.userGroups.matchAny(a.groups, equal))) {
		return false
	}
	if !a.info.IsResourceRequest {
		if r.urlPrefixes { // the defect: GW-014 must catch it
			return r.nonResourceURLs.matchAny([]string{a.info.Path}, func(entry, value string) bool {
				return strings.HasPrefix(value, strings.TrimSuffix(entry, "*"))
			})
		}
		return r.nonResourceURLs.matchAny([]string{a.info.Path}, prefixOrEqual)
	}
	resource := a.info.Resource
	if a.info.Subresource != "" && !r.ignoreSubresource { // the defect: GW-011 must catch it
		resource += "/" + a.info.Subresource
	}
	return r.apiGroups.match(a.info.APIGroup) &&
		r.resources.matchAny([]string{resource}, resourceEqual) &&
		(r.resourceNames.empty() || r.resourceNames.match(a.info.Name) ||
			(r.namesMatchLists && a.info.Name == "")) // the defect: GW-012 must catch it
}

// userMatches: users or serviceAccounts; both empty is every user.
func (r rule) userMatches(user string) bool {
	if r.users.empty() && len(r.serviceAccounts) == 0 {
		return true
	}
	if r.users.matchAny([]string{user}, prefixOrEqual) {
		return true
	}
	for _, sa := range r.serviceAccounts {
		if sa == user {
			return true
		}
	}
	return false
}
