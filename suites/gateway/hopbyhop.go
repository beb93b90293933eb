package gateway

import (
	"context"
	"encoding/json"

	. "github.com/onsi/gomega"
	authnv1 "k8s.io/api/authentication/v1"

	"github.com/skewcheck/skewcheck/framework"
)

// connectionNamings are Connection headers that name what a gateway sets or strips for the
// client's identity: impersonation, front-proxy headers, credentials, and the loop marker
// of the apiservers' own proxy. Every proxy removes the headers Connection names from the
// request it forwards (RFC 9110 section 7.6.1); a gateway that writes the impersonation
// before that removal forwards the request with its own credentials and no impersonation,
// so any client, anonymous included, acts with the gateway's rights.
//
// The first names every impersonation header a gateway sets for the profile's clients:
// user, groups, UID, and the one extra kube-apiserver (1.32+) gives every credential
// (credentialID, escaped as client-go and the reference escape an extra key). Only such a
// naming takes the whole impersonation away; one that leaves a header of it (the second,
// the third: a group, an extra) leaves an impersonation without a user, which kube-apiserver
// itself refuses 400, and that 400 cannot be told from a gateway's refusal here.
var connectionNamings = []string{
	"Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-Authentication.kubernetes.io%2Fcredential-Id",
	"Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-Scopes",
	"impersonate-user",
	"X-Remote-User, X-Remote-Group, X-Remote-Uid, X-Remote-Extra-Scopes",
	"Authorization",
	"X-Kubernetes-Peer-Proxied",
}

// hopByHopIdentity: naming identity headers in Connection changes nobody's identity. The
// gateway may refuse the request (400) or serve it as the client; a SelfSubjectReview it
// serves shows the client, and secrets stay forbidden to the unprivileged user and to
// anonymous. Over HTTP/1.1: HTTP/2 has no Connection header.
func hopByHopIdentity(ctx context.Context, env *framework.Env) {
	g := framework.OverHTTP1(env.Target.Gateway.Endpoint)
	sa := framework.OverHTTP1(serviceAccountEndpoint(ctx, env, "skewcheck-gw-hop-by-hop"))
	clients := []struct {
		who  string
		e    *framework.Endpoint
		as   framework.Identity
		user string
	}{
		{"the unprivileged user", g, framework.AsUser, env.Target.Endpoints[0].UserName},
		{"a service account (bearer token)", sa, framework.AsAdmin, "system:serviceaccount:default:skewcheck-gw-hop-by-hop"},
		{"an anonymous client", g, framework.AsAnonymous, "system:anonymous"},
	}
	for _, named := range connectionNamings {
		hop := map[string][]string{"Connection": {named}}
		for _, c := range clients {
			r := c.e.Do(ctx, framework.Request{Method: "POST", Path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", As: c.as, Header: hop,
				Body: []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)})
			if r.Status == 201 {
				var ssr authnv1.SelfSubjectReview
				Expect(json.Unmarshal(r.Body, &ssr)).To(Succeed(), "the SelfSubjectReview through the gateway: %s", r)
				Expect(ssr.Status.UserInfo.Username).To(Equal(c.user),
					"%s sent Connection: %s, and the upstream ran the request as %q, not as the client: the gateway wrote its identity headers before the headers named in Connection were removed (hop-by-hop), so the request went as the gateway itself. Set them on the outgoing request after that removal, or refuse such a request with 400",
					c.who, named, ssr.Status.UserInfo.Username)
				continue
			}
			// Anonymous may not review itself, and a gateway whose cluster does not let
			// anonymous in (the reference's default) answers it 401 itself; refused is
			// refused, whoever refuses.
			Expect(r.Status).To(BeElementOf(400, 401, 403), "%s sent a SelfSubjectReview with Connection: %s: want 400 (refused by the gateway), or 201 showing the client: %s", c.who, named, r)
			if c.as != framework.AsAnonymous {
				Expect(r.Status).To(Equal(400), "%s sent a SelfSubjectReview with Connection: %s: want 400 (refused by the gateway), or 201 showing the client: %s", c.who, named, r)
			}
		}
		for _, c := range []struct {
			who string
			as  framework.Identity
		}{{"the unprivileged user", framework.AsUser}, {"an anonymous client", framework.AsAnonymous}} {
			r := g.Do(ctx, framework.Request{Path: "/api/v1/namespaces/kube-system/secrets?limit=1", As: c.as, Header: hop})
			Expect(r.Status).To(BeElementOf(400, 401, 403),
				"%s listed kube-system secrets through the gateway with Connection: %s: the request reached the upstream as the gateway itself: %s", c.who, named, r)
		}
	}
}
