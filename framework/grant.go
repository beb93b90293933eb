package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// ReadGrant is what GrantRead writes: a ClusterRole and its binding, labelled with the run,
// and the reviews that ask whether each server has seen them.
var ReadGrant = []Write{
	{Resource: "clusterroles.rbac.authorization.k8s.io", Verbs: []string{"create", "delete"}, Scope: ClusterLabelled,
		Why: "get, list and watch of one resource, for the unprivileged user"},
	{Resource: "clusterrolebindings.rbac.authorization.k8s.io", Verbs: []string{"create", "delete"}, Scope: ClusterLabelled,
		Why: "that role, bound to the unprivileged user"},
	{Resource: "selfsubjectaccessreviews.authorization.k8s.io", Verbs: []string{"create"}, Scope: StoresNothing,
		Why: "the unprivileged user asking each apiserver's own authorizer whether the grant has reached it (every authenticated user may)"},
}

// GrantRead lets via's unprivileged user get, list and watch gvr's resource: a ClusterRole
// and binding of a name of their own, made through via and deleted when the test ends, so
// a run only ever deletes what it made. It returns once each of authorizers lets the user
// do all three: every server authorizes from its own informer cache, so a grant one server
// has seen another may not have yet.
func GrantRead(ctx context.Context, env *Env, via *Endpoint, gvr discovery.GVR, authorizers ...*Endpoint) {
	name := fixtures.UniqueName("skewcheck-read")
	role := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name, "labels": RunLabels()},
		"rules": []any{map[string]any{"apiGroups": []string{gvr.Group}, "resources": []string{gvr.Resource}, "verbs": []string{"get", "list", "watch"}}}}
	binding := map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": name, "labels": RunLabels()},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": via.UserName}}}
	for _, o := range []struct {
		path string
		obj  map[string]any
	}{{"/apis/rbac.authorization.k8s.io/v1/clusterroles", role}, {"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding}} {
		body, _ := json.Marshal(o.obj)
		Expect(via.Do(ctx, Request{Method: "POST", Path: o.path, Body: body})).To(HaveStatus(201), "granting %s read of %s", via.UserName, gvr.Key())
		ginkgo.DeferCleanup(func(ctx context.Context) {
			resp := via.Do(ctx, Request{Method: "DELETE", Path: o.path + "/" + name})
			Expect(resp.Status).To(BeElementOf(200, 202, 404), "deleting %s/%s through %s, which would leave it in the cluster: %s", o.path, name, via.Name, resp)
		})
	}
	for _, e := range authorizers {
		for _, verb := range []string{"get", "list", "watch"} {
			var last Response
			Eventually(func() bool {
				ok, r := authorized(ctx, e, gvr, verb)
				last = r
				return ok
			}).WithTimeout(env.Timeouts.Request).WithPolling(200*time.Millisecond).Should(BeTrue(), func() string {
				return fmt.Sprintf("RBAC grant %s: %s does not let %s %s %s; its last answer: %s", name, e.Name, e.UserName, verb, gvr.Key(), last)
			})
		}
	}
}

// authorized asks e's own authorizer (a SelfSubjectAccessReview, which every server
// answers itself and every authenticated user may send) whether the unprivileged user may
// do verb on gvr in the test namespace, and gives the answer it judged.
func authorized(ctx context.Context, e *Endpoint, gvr discovery.GVR, verb string) (bool, Response) {
	review, _ := json.Marshal(map[string]any{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]any{"resourceAttributes": map[string]any{"namespace": TestNamespace(), "verb": verb,
			"group": gvr.Group, "version": gvr.Version, "resource": gvr.Resource}}})
	resp := e.Do(ctx, Request{Method: "POST", Path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", Body: review, As: AsUser})
	var out struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	return resp.Status == 201 && json.Unmarshal(resp.Body, &out) == nil && out.Status.Allowed, resp
}
