package gateway

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// serviceAccountEndpoint makes a service account (asking an apiserver directly) and
// returns the gateway as that service account, with a bearer token the gateway must
// review (TokenReview).
func serviceAccountEndpoint(ctx context.Context, env *framework.Env, name string) *framework.Endpoint {
	cs, err := kubernetes.NewForConfig(env.Target.Endpoints[0].Admin)
	Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "creating service account default/%s", name)
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "a token for default/%s", name)
	g := env.Target.Gateway.Endpoint
	cfg := rest.AnonymousClientConfig(g.Admin)
	cfg.BearerToken = tr.Status.Token
	return &framework.Endpoint{Name: "gateway-as-" + name, URL: g.URL, Admin: cfg, RequestTimeout: g.RequestTimeout}
}

// whoAmIThrough asks, through the gateway, who the request runs as upstream.
func whoAmIThrough(ctx context.Context, e *framework.Endpoint, as framework.Identity, header map[string][]string) (authnv1.UserInfo, framework.Response) {
	r := e.Do(ctx, framework.Request{Method: "POST", Path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", As: as, Header: header,
		Body: []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)})
	Expect(r).To(framework.HaveStatus(201), "SelfSubjectReview through the gateway")
	var ssr authnv1.SelfSubjectReview
	Expect(json.Unmarshal(r.Body, &ssr)).To(Succeed())
	return ssr.Status.UserInfo, r
}

// identitySeen: the upstream sees the client (user, groups, uid, extra), as when the
// client asks it directly, and its audit log shows the request arrived impersonated.
func identitySeen(ctx context.Context, env *framework.Env) {
	direct := env.Target.Endpoints[0]
	ui, r := whoAmIThrough(ctx, env.Target.Gateway.Endpoint, framework.AsUser, nil)
	Expect(ui.Username).To(Equal(direct.UserName), "user name the upstream sees through the gateway (directly: %s)", direct.UserName)
	Expect(ui.Groups).To(ConsistOf(direct.UserGroups), "groups the upstream sees")
	Expect(ui.UID).To(Equal(direct.UserUID), "UID the upstream sees")
	want := map[string]authnv1.ExtraValue{}
	for k, v := range direct.UserExtra {
		want[k] = v
	}
	got := map[string]authnv1.ExtraValue{}
	for k, v := range ui.Extra {
		got[k] = v
	}
	Expect(got).To(Equal(want), "extra the upstream sees (directly: %v)", direct.UserExtra)

	where := servedBy(ctx, env, []string{r.AuditID}, 5*time.Second)
	e := env.Target.Endpoint(where[r.AuditID])
	Expect(e).NotTo(BeNil(), "no apiserver's audit log shows the request %s", r.AuditID)
	events, err := e.AuditEvents(ctx, r.AuditID, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	Expect(events).NotTo(BeEmpty())
	Expect(events[0].ImpersonatedUser).NotTo(BeNil(), "the audit log of %s shows the request as %s, not impersonated: the gateway must reach upstreams as itself, impersonating the client", e.Name, events[0].User.Username)
	Expect(events[0].ImpersonatedUser.Username).To(Equal(direct.UserName), "the impersonated user in %s's audit log", e.Name)
	Expect(events[0].User.Username).NotTo(Equal(direct.UserName), "the authenticated user in %s's audit log must be the gateway's own identity", e.Name)

	sa := serviceAccountEndpoint(ctx, env, "skewcheck-gw-identity")
	ui, _ = whoAmIThrough(ctx, sa, framework.AsAdmin, nil)
	Expect(ui.Username).To(Equal("system:serviceaccount:default:skewcheck-gw-identity"), "a bearer token's user, through the gateway")
	Expect(ui.Groups).To(ContainElements("system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"))
	bad := *sa
	bad.Admin = rest.CopyConfig(sa.Admin)
	bad.Admin.BearerToken = "not-a-token"
	Expect(bad.Do(ctx, listConfigMaps)).To(framework.HaveStatus(401), "an invalid bearer token")
}

// spoofedHeaders: identity headers a client sends itself grant nothing: X-Remote-* (a
// front proxy's) are not believed, Impersonate-* is allowed only as the client's own
// RBAC allows impersonation, which the unprivileged user's does not, and naming them in
// Connection takes no identity away (hopbyhop.go).
func spoofedHeaders(ctx context.Context, env *framework.Env) {
	g := env.Target.Gateway.Endpoint
	direct := env.Target.Endpoints[0]
	remote := map[string][]string{"X-Remote-User": {"skewcheck-admin"}, "X-Remote-Group": {"system:masters"}, "X-Remote-Uid": {"0"},
		"X-Remote-Extra-Scopes": {"all"}}
	ui, _ := whoAmIThrough(ctx, g, framework.AsUser, remote)
	Expect(ui.Username).To(Equal(direct.UserName), "X-Remote-User sent by a client changed who the upstream sees")
	Expect(ui.Groups).NotTo(ContainElement("system:masters"), "X-Remote-Group sent by a client was believed")
	secrets := framework.Request{Path: "/api/v1/namespaces/kube-system/secrets?limit=1", As: framework.AsUser}
	Expect(g.Do(ctx, secrets)).To(framework.HaveStatus(403), "the unprivileged user lists secrets through the gateway")
	secrets.Header = remote
	Expect(g.Do(ctx, secrets)).To(framework.HaveStatus(403), "the unprivileged user lists secrets with X-Remote-User/Group: admin, system:masters")
	secrets.Header = map[string][]string{"Impersonate-User": {"skewcheck-admin"}, "Impersonate-Group": {"system:masters"}}
	Expect(g.Do(ctx, secrets)).To(framework.HaveStatus(403), "the unprivileged user, who may not impersonate, asks to impersonate admin in system:masters")
	secrets.Header = map[string][]string{"Impersonate-Group": {"system:masters"}}
	Expect(g.Do(ctx, secrets).Status).NotTo(Equal(200), "Impersonate-Group without Impersonate-User")
	// Impersonation the client may do still works: admin impersonating the user is the user.
	ui, _ = whoAmIThrough(ctx, g, framework.AsAdmin, map[string][]string{"Impersonate-User": {direct.UserName}})
	Expect(ui.Username).To(Equal(direct.UserName), "admin impersonating %s through the gateway", direct.UserName)
	hopByHopIdentity(ctx, env)
}
