package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
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
	return withToken(env.Target.Gateway.Endpoint, "gateway-as-"+name, serviceAccountToken(ctx, env, name))
}

// serviceAccountToken makes a service account default/name (asking an apiserver
// directly) and a token for it.
func serviceAccountToken(ctx context.Context, env *framework.Env, name string) string {
	cs, err := kubernetes.NewForConfig(env.Target.Endpoints[0].Admin)
	Expect(err).NotTo(HaveOccurred())
	_, err = cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "creating service account default/%s", name)
	}
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "a token for default/%s", name)
	return tr.Status.Token
}

// withToken is e reached with a bearer token (as its admin identity, the only one).
func withToken(e *framework.Endpoint, name, token string) *framework.Endpoint {
	cfg := rest.AnonymousClientConfig(e.Admin)
	cfg.BearerToken = token
	return &framework.Endpoint{Name: name, URL: e.URL, Admin: cfg, RequestTimeout: e.RequestTimeout}
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

// credentialID is the extra kube-apiserver (1.32+) adds for the credential a request
// authenticated with: the client certificate's fingerprint, a token's JTI. For a
// certificate it is derived from the certificate the gateway terminated, so a gateway
// reproduces it only by computing it the same way; GW-030 reports a difference in it, and
// does not fail for one.
const credentialID = "authentication.kubernetes.io/credential-id"

// identitySeen: the upstream sees the client (user, groups, UID, and the extra of its own),
// as when the client asks it directly, for a certificate user and for a service account's
// token (whose user has a UID, which must reach the upstream as Impersonate-Uid); its
// audit log shows the request arrived impersonated.
func identitySeen(ctx context.Context, env *framework.Env) {
	direct := env.Target.Endpoints[0]
	ui, r := whoAmIThrough(ctx, env.Target.Gateway.Endpoint, framework.AsUser, nil)
	sameIdentity(authnv1.UserInfo{Username: direct.UserName, Groups: direct.UserGroups, UID: direct.UserUID, Extra: extraOf(direct.UserExtra)}, ui, "the certificate user")

	where := servedBy(ctx, env, []string{r.AuditID}, 5*time.Second)
	e := env.Target.Endpoint(where[r.AuditID])
	Expect(e).NotTo(BeNil(), "no apiserver's audit log shows the request %s", r.AuditID)
	events, err := e.AuditEvents(ctx, r.AuditID, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	Expect(events).NotTo(BeEmpty())
	Expect(events[0].ImpersonatedUser).NotTo(BeNil(), "the audit log of %s shows the request as %s, not impersonated: the gateway must reach upstreams as itself, impersonating the client", e.Name, events[0].User.Username)
	Expect(events[0].ImpersonatedUser.Username).To(Equal(direct.UserName), "the impersonated user in %s's audit log", e.Name)
	Expect(events[0].User.Username).NotTo(Equal(direct.UserName), "the authenticated user in %s's audit log must be the gateway's own identity", e.Name)

	// A service account's token: its user has a UID (the service account's).
	token := serviceAccountToken(ctx, env, "skewcheck-gw-identity")
	sa := withToken(env.Target.Gateway.Endpoint, "gateway-as-skewcheck-gw-identity", token)
	want, _ := whoAmIThrough(ctx, withToken(direct, direct.Name+"-as-skewcheck-gw-identity", token), framework.AsAdmin, nil)
	Expect(want.Username).To(Equal("system:serviceaccount:default:skewcheck-gw-identity"), "the token's user, asking %s directly", direct.Name)
	Expect(want.UID).NotTo(BeEmpty(), "precondition: the token's user has a UID, asking %s directly", direct.Name)
	ui, _ = whoAmIThrough(ctx, sa, framework.AsAdmin, nil)
	sameIdentity(want, ui, "the service account's token")

	bad := *sa
	bad.Admin = rest.CopyConfig(sa.Admin)
	bad.Admin.BearerToken = "not-a-token"
	Expect(bad.Do(ctx, listConfigMaps)).To(framework.HaveStatus(401), "an invalid bearer token")
}

// sameIdentity: the upstream, through the gateway, sees who the client is when it asks
// directly: name, groups, UID, and the extra of the client's own. The credential ID is
// compared apart, and a difference in it is only reported.
func sameIdentity(direct, through authnv1.UserInfo, who string) {
	Expect(through.Username).To(Equal(direct.Username), "user name the upstream sees through the gateway for %s (directly: %s)", who, direct.Username)
	Expect(through.Groups).To(ConsistOf(direct.Groups), "groups the upstream sees through the gateway for %s (directly: %v)", who, direct.Groups)
	Expect(through.UID).To(Equal(direct.UID), "UID the upstream sees through the gateway for %s (directly: %q): the gateway must pass it on (Impersonate-Uid)", who, direct.UID)
	own := func(extra map[string]authnv1.ExtraValue) map[string]authnv1.ExtraValue {
		out := map[string]authnv1.ExtraValue{}
		for k, v := range extra {
			if k != credentialID {
				out[k] = v
			}
		}
		return out
	}
	Expect(own(through.Extra)).To(Equal(own(direct.Extra)), "extra the upstream sees through the gateway for %s, besides %s (directly: %v)", who, credentialID, direct.Extra)
	if d, t := direct.Extra[credentialID], through.Extra[credentialID]; !slices.Equal(d, t) {
		ginkgo.AddReportEntry("note", fmt.Sprintf("%s: %s is %v through the gateway, %v directly (the apiserver derives it from the credential it authenticated; through the gateway that is the gateway's to reproduce: not required)", who, credentialID, []string(t), []string(d)))
	}
}

func extraOf(m map[string][]string) map[string]authnv1.ExtraValue {
	out := map[string]authnv1.ExtraValue{}
	for k, v := range m {
		out[k] = v
	}
	return out
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
