package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	authzv1 "k8s.io/api/authorization/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// A client may itself send Impersonate-* headers (kubectl --as). The gateway cannot pass
// them on: it already impersonates the client, and Kubernetes has no chained
// impersonation. Stripping them would be wrong too: the request would run as the client
// instead of as whom it asked, possibly with more rights than the client meant to use.
// So the gateway does what kube-apiserver's impersonation filter does: it asks an
// upstream (SubjectAccessReview, as the gateway) whether the real client may impersonate
// each requested user, group, uid and extra, refuses with the apiserver's 403 if not, and
// otherwise impersonates the requested identity upstream. A client-sent Impersonate-*
// therefore grants exactly what the client's own RBAC grants (verb impersonate), nothing
// more.

// impersonationRequest is what a client asked to act as.
type impersonationRequest struct {
	user   string
	groups []string
	uid    string
	extra  map[string][]string
}

// errBadImpersonation is malformed impersonation (groups without a user, ...): kube-apiserver
// answers it with an internal error, and so does the gateway.
type errBadImpersonation struct{ msg string }

func (e errBadImpersonation) Error() string { return e.msg }

// readImpersonation parses the client's headers; nil when there are none.
func readImpersonation(h http.Header) (*impersonationRequest, error) {
	req := &impersonationRequest{user: h.Get(impersonationHeaders.User), groups: h.Values(impersonationHeaders.Group), uid: h.Get(impersonationHeaders.UID)}
	var extraKeys []string
	for k, vs := range h {
		ck := http.CanonicalHeaderKey(k)
		if !strings.HasPrefix(ck, impersonationHeaders.ExtraPrefix) {
			continue
		}
		key, err := url.PathUnescape(strings.ToLower(ck[len(impersonationHeaders.ExtraPrefix):]))
		if err != nil {
			key = strings.ToLower(ck[len(impersonationHeaders.ExtraPrefix):])
		}
		if req.extra == nil {
			req.extra = map[string][]string{}
		}
		req.extra[key] = append(req.extra[key], vs...)
		extraKeys = append(extraKeys, key)
	}
	if req.user == "" {
		if len(req.groups) > 0 || req.uid != "" || len(extraKeys) > 0 {
			return nil, errBadImpersonation{fmt.Sprintf("requested impersonation of groups %v, uid %q or extra %v without impersonating a user", req.groups, req.uid, extraKeys)}
		}
		return nil, nil
	}
	return req, nil
}

// impersonationCheck is one thing to authorize: the SubjectAccessReview attributes.
type impersonationCheck struct {
	group, resource, subresource, namespace, name string
}

func (c impersonationCheck) describe(actor string) string {
	scope := "at the cluster scope"
	if c.namespace != "" {
		scope = fmt.Sprintf("in the namespace %q", c.namespace)
	}
	qualified, res := c.resource, c.resource
	if c.group != "" {
		qualified += "." + c.group
	}
	if c.subresource != "" {
		res += "/" + c.subresource
	}
	return fmt.Sprintf("%s %q is forbidden: User %q cannot impersonate resource %q in API group %q %s",
		qualified, c.name, actor, res, c.group, scope)
}

// checks lists what kube-apiserver's impersonation filter authorizes for the request.
func (r *impersonationRequest) checks() []impersonationCheck {
	var out []impersonationCheck
	if ns, name, ok := splitServiceAccount(r.user); ok {
		out = append(out, impersonationCheck{resource: "serviceaccounts", namespace: ns, name: name})
	} else {
		out = append(out, impersonationCheck{resource: "users", name: r.user})
	}
	for _, g := range r.groups {
		out = append(out, impersonationCheck{resource: "groups", name: g})
	}
	if r.uid != "" {
		out = append(out, impersonationCheck{group: "authentication.k8s.io", resource: "uids", name: r.uid})
	}
	keys := make([]string, 0, len(r.extra))
	for k := range r.extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range r.extra[k] {
			out = append(out, impersonationCheck{group: "authentication.k8s.io", resource: "userextras", subresource: k, name: v})
		}
	}
	return out
}

func splitServiceAccount(name string) (namespace, sa string, ok bool) {
	rest, found := strings.CutPrefix(name, "system:serviceaccount:")
	if !found {
		return "", "", false
	}
	namespace, sa, ok = strings.Cut(rest, ":")
	return namespace, sa, ok && namespace != "" && sa != ""
}

// asUser is the identity the upstream will see, built as kube-apiserver builds it: a
// service account without explicit groups gets its groups; every non-anonymous user is in
// system:authenticated unless system:unauthenticated was asked for.
func (r *impersonationRequest) asUser() *authn.User {
	u := &authn.User{Name: r.user, UID: r.uid, Groups: slices.Clone(r.groups), Extra: r.extra}
	if ns, _, ok := splitServiceAccount(r.user); ok && len(r.groups) == 0 {
		u.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
	}
	if r.user != anonymousUser && !slices.Contains(u.Groups, authn.AuthenticatedGroup) && !slices.Contains(u.Groups, unauthenticated) {
		u.Groups = append(u.Groups, authn.AuthenticatedGroup)
	}
	return u
}

// impersonationAuthorizer asks upstreams, with a short cache, whether a user may
// impersonate. allowed returns the first check that is denied, or nil.
type impersonationAuthorizer struct {
	review func(ctx context.Context, sar *authzv1.SubjectAccessReview) (bool, error)
	mu     sync.Mutex
	cache  map[string]time.Time // allowed decisions only, by actor and check
}

// impersonationCacheTTL bounds how long a revoked impersonate grant keeps working;
// maxCachedImpersonations bounds the memory a flood of distinct requests can take.
const (
	impersonationCacheTTL   = 10 * time.Second
	maxCachedImpersonations = 4096
)

func (a *impersonationAuthorizer) denied(ctx context.Context, actor *authn.User, req *impersonationRequest) (*impersonationCheck, error) {
	for _, c := range req.checks() {
		key := fmt.Sprintf("%q %q %q %v|%+v", actor.Name, actor.UID, actor.Groups, actor.Extra, c)
		a.mu.Lock()
		exp, ok := a.cache[key]
		a.mu.Unlock()
		if ok && time.Now().Before(exp) {
			continue
		}
		sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
			User: actor.Name, UID: actor.UID, Groups: actor.Groups, Extra: map[string]authzv1.ExtraValue{},
			ResourceAttributes: &authzv1.ResourceAttributes{Verb: "impersonate", Group: c.group, Resource: c.resource,
				Subresource: c.subresource, Namespace: c.namespace, Name: c.name},
		}}
		for k, v := range actor.Extra {
			sar.Spec.Extra[k] = v
		}
		allowed, err := a.review(ctx, sar)
		if err != nil {
			return nil, err
		}
		if !allowed {
			return &c, nil
		}
		a.mu.Lock()
		if a.cache == nil || len(a.cache) >= maxCachedImpersonations {
			a.cache = map[string]time.Time{}
		}
		a.cache[key] = time.Now().Add(impersonationCacheTTL)
		a.mu.Unlock()
	}
	return nil, nil
}
