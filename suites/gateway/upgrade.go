package gateway

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// upgradeMethod is how each kind of client asks: SPDY exec is a POST, a websocket
// handshake a GET.
var upgradeMethod = map[string]string{"SPDY": "POST", "websocket": "GET"}

// upgradesKeepUser: upgrade requests through the gateway reach an apiserver as the user.
// The local clusters have no kubelets, so the upgrades are ones an apiserver answers
// itself: exec in a pod that does not exist (404 to the admin; 403 to a user RBAC grants
// nothing, which only a request that arrives as that user gets) and a websocket watch
// (403 before a grant, 101 after). Every answer is checked against the audit log of the
// apiserver that gave it: the request ran as the user there.
func upgradesKeepUser(ctx context.Context, env *framework.Env) {
	g := framework.OverHTTP1(env.Target.Gateway.Endpoint)
	exec := "/api/v1/namespaces/default/pods/skewcheck-no-such-pod/exec?command=true&stdout=true"
	for kind, h := range framework.UpgradeHeaders() {
		admin := g.Do(ctx, framework.Request{Method: upgradeMethod[kind], Path: exec, Header: h})
		Expect(admin).To(framework.BeStatus(404, "NotFound"), "%s exec in a missing pod as the admin through the gateway: the apiserver answers it", kind)
		denied := g.Do(ctx, framework.Request{Method: upgradeMethod[kind], Path: exec, Header: h, As: framework.AsUser})
		Expect(denied).To(framework.BeStatus(403, "Forbidden"), "%s exec in a missing pod as a user RBAC grants nothing: the apiserver must authorize the user, not the gateway", kind)
		ranAsUser(ctx, env, denied, fmt.Sprintf("the %s exec", kind))
	}

	watch := framework.Request{Path: "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1", As: framework.AsUser}
	ws := func() framework.Request { r := watch; r.Header = framework.UpgradeHeaders()["websocket"]; return r }
	denied := g.Do(ctx, ws())
	Expect(denied).To(framework.HaveStatus(403), "a websocket watch of configmaps as the ungranted user through the gateway")
	ranAsUser(ctx, env, denied, "the ungranted websocket watch")
	grantConfigMapRead(ctx, env)
	allowed := g.Do(ctx, ws())
	Expect(allowed).To(framework.HaveStatus(101), "a websocket watch of configmaps as the user, once granted, through the gateway")
	ranAsUser(ctx, env, allowed, "the granted websocket watch")
	// An SPDY upgrade on a watch: no real client sends one, and the apiserver ignores the
	// upgrade and streams as usual (200). A proxy built on k8s.io/apimachinery's
	// proxy.UpgradeAwareHandler (every version since at least v0.20 to v0.36: tryUpgrade)
	// sends the request on, and when the backend answers below 400 without switching
	// protocols it answers the client through its Responder, 502 "invalid upgrade
	// response: status code 200", instead of passing the stream on. Both are accepted: the
	// step is here for the identity check, and the request reached the apiserver either way.
	spdy := watch
	spdy.Header = framework.UpgradeHeaders()["SPDY"]
	streamed := g.Do(ctx, spdy)
	Expect(streamed.Status).To(BeElementOf(200, 502), "a watch with an SPDY upgrade as the granted user through the gateway: the apiserver streams it (200) and an upgrade-aware proxy may answer 502 for that (\"invalid upgrade response\"); anything else is the gateway's own: %s", streamed)
	ranAsUser(ctx, env, streamed, fmt.Sprintf("the SPDY-upgrade watch (HTTP %d)", streamed.Status))
}

// ranAsUser: the apiserver that answered r recorded it as the unprivileged user (as the
// impersonated user, or as the authenticated one for a gateway that passes the user's own
// credentials).
func ranAsUser(ctx context.Context, env *framework.Env, r framework.Response, what string) {
	where := servedBy(ctx, env, []string{r.AuditID}, 5*time.Second)
	e := env.Target.Endpoint(where[r.AuditID])
	Expect(e).NotTo(BeNil(), "%s (%s) is in no apiserver's audit log", what, r.AuditID)
	events, err := e.AuditEvents(ctx, r.AuditID, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	Expect(events).To(HaveLen(1), "%s: the audit log of %s", what, e.Name)
	ev := events[0]
	as := ev.User.Username
	if ev.ImpersonatedUser != nil {
		as = ev.ImpersonatedUser.Username
	}
	Expect(as).To(Equal(e.UserName), "%s ran on %s as %q (authenticated as %q): the upstream must see the user", what, e.Name, as, ev.User.Username)
}

// grantConfigMapRead lets the unprivileged user get, list and watch configmaps, once every
// apiserver behind the gateway lets it.
func grantConfigMapRead(ctx context.Context, env *framework.Env) {
	configMaps := discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	framework.GrantRead(ctx, env, env.Target.Endpoints[0], configMaps, env.Target.Endpoints...)
}
