package mvp

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// unprivilegedDenied: authorization runs with the user's identity at the peer.
func unprivilegedDenied(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		path := r.GVR.CollectionPath(testNamespace())
		direct := r.Peer.Do(ctx, framework.Request{Path: path, As: framework.AsUser})
		via := r.Entry.Do(ctx, framework.Request{Path: path, As: framework.AsUser})
		Expect(direct).To(framework.HaveStatus(403), "the unprivileged user must be denied by %s directly", r.Peer.Name)
		Expect(via).To(framework.BeStatus(403, "Forbidden"), "the unprivileged user must be denied through %s as by %s directly", r.Entry.Name, r.Peer.Name)
	}
}

// allowedUser: once RBAC grants the user read access, reads through the proxy succeed.
func allowedUser(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "create", "get", "list", "watch") {
		grantRead(ctx, env, r)
		name := fixtures.UniqueName("allowed")
		createVia(ctx, r.Peer, r.Peer, r.GVR, name)
		as := framework.AsUser
		Expect(r.Entry.Do(ctx, framework.Request{Path: objectPath(r.GVR, testNamespace(), name), As: as})).To(framework.HaveStatus(200), "get as the allowed user through %s", r.Entry.Name)
		Expect(r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()), As: as})).To(framework.HaveStatus(200), "list as the allowed user through %s", r.Entry.Name)
		Expect(r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?watch=true&timeoutSeconds=1", As: as})).To(framework.HaveStatus(200), "watch as the allowed user through %s", r.Entry.Name)
	}
}

// impersonation: the admin impersonating the unprivileged user is that user at the peer.
func impersonation(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		req := framework.Request{Path: r.GVR.CollectionPath(testNamespace()), Header: map[string][]string{"Impersonate-User": {r.Peer.UserName}}}
		direct := r.Peer.Do(ctx, req)
		via := r.Entry.Do(ctx, req)
		Expect(direct).To(framework.HaveStatus(403), "%s directly: the admin impersonating %s", r.Peer.Name, r.Peer.UserName)
		Expect(via).To(framework.HaveStatus(403), "through %s: the admin impersonating %s must be authorized as %s", r.Entry.Name, r.Peer.UserName, r.Peer.UserName)
	}
}

// auditIdentity: the peer records the user, groups, UID and extra (such as the credential
// ID) the user has when it asks the apiservers directly. The user needs a grant: an entry that authorizes first would deny it, and
// a denied request never reaches the peer.
func auditIdentity(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		grantRead(ctx, env, r)
		resp := r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()), As: framework.AsUser})
		Expect(resp).To(framework.HaveStatus(200))
		peerEvents, err := r.PeerAuditEvents(ctx, resp.AuditID, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(peerEvents).To(HaveLen(1), "the proxied request %s should be in the audit log of exactly one of the servers that serve %s (%s), once", resp.AuditID, r.GVR.Key(), r.PeerNames())
		got := peerEvents[0].User
		Expect(got.Username).To(Equal(r.Peer.UserName), "user at the peer")
		Expect(got.Groups).To(ConsistOf(r.Peer.UserGroups), "groups at the peer")
		Expect(got.UID).To(Equal(r.Peer.UserUID), "UID at the peer")
		for k, v := range r.Peer.UserExtra {
			Expect(got.Extra).To(HaveKeyWithValue(k, v), "extra %s at the peer", k)
		}
	}
}

// spoofedHeaders: the front-proxy headers are trusted only from the proxy's client cert;
// a client sending them itself is still only itself, at the entry and at the peer.
func spoofedHeaders(ctx context.Context, env *framework.Env) {
	spoof := map[string][]string{"X-Remote-User": {"system:admin"}, "X-Remote-Group": {"system:masters"}, "X-Remote-Uid": {"0"},
		"X-Remote-Extra-Scopes": {"all"}}
	routes := routesFor(env, "list", "create")
	// Denied at every entry before any grant: the headers must not make the user an admin
	// there. Every route is asked before the first grant, since with three servers or more
	// two routes share a GVR, and one route's grant would answer the other's question.
	for _, r := range routes {
		denied := r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()), As: framework.AsUser, Header: spoof})
		Expect(denied).To(framework.HaveStatus(403), "identity headers sent by the client changed who it is at %s", r.Entry.Name)
	}
	for _, r := range routes {
		// Allowed to read, so the request reaches the peer: it must see the user, not the spoof;
		// and a write it is not granted stays denied.
		grantRead(ctx, env, r)
		resp := r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()), As: framework.AsUser, Header: spoof})
		Expect(resp).To(framework.HaveStatus(200))
		obj := refusedWrite(r, "skewcheck-spoofed")
		Expect(r.Entry.Do(ctx, framework.Request{Method: "POST", Path: r.GVR.CollectionPath(testNamespace()), Body: obj, As: framework.AsUser, Header: spoof})).
			To(framework.HaveStatus(403), "a write with spoofed identity headers through %s", r.Entry.Name)
		if r.PeerAuditLogs() {
			events, err := r.PeerAuditEvents(ctx, resp.AuditID, 5*time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(HaveLen(1), "the proxied read %s should be in the audit log of exactly one of the servers that serve %s (%s), once", resp.AuditID, r.GVR.Key(), r.PeerNames())
			for _, ev := range events {
				Expect(ev.User.Username).To(Equal(r.Entry.UserName))
				Expect(ev.User.Groups).NotTo(ContainElement("system:masters"))
				Expect(ev.User.Extra).NotTo(HaveKey("scopes"), "a client's X-Remote-Extra-Scopes reached %s as the user's extra", r.PeerNames())
			}
		}
		hopByHopIdentity(ctx, env, r)
	}
}

// upgradeIdentity: a websocket watch is an upgrade request; the allowed user must get
// 101 Switching Protocols through the proxy as it does directly.
func upgradeIdentity(ctx context.Context, env *framework.Env) {
	watch := func(r framework.Route) framework.Request {
		key := make([]byte, 16)
		rand.Read(key)
		return framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?watch=true&timeoutSeconds=1", As: framework.AsUser,
			Header: map[string][]string{
				// The apiserver's websocket handler refuses a handshake without an Origin.
				"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}, "Origin": {"https://skewcheck.local"},
				"Sec-Websocket-Key": {base64.StdEncoding.EncodeToString(key)},
			}}
	}
	routes := routesFor(env, "list", "watch")
	// Before any grant the user may not watch: whoever the peer authorizes, it must not
	// be the proxy (which may watch anything). 403 is the user, denied; upstream's 401,
	// the peer not seeing the user at all, is the known deviation. Every route is asked
	// before the first grant: with three servers or more two routes share a GVR.
	for _, r := range routes {
		for _, p := range r.Peers {
			Expect(p.Do(ctx, watch(r))).To(framework.HaveStatus(403), "a websocket watch as the ungranted user, directly to %s", p.Name)
		}
		ungranted := r.Entry.Do(ctx, watch(r))
		env.Deviation(framework.Observation{At: r.Entry, Status: ungranted.Status}, func() {
			Expect(ungranted).To(framework.HaveStatus(403), "a websocket watch as the ungranted user through %s: the peer must authorize the user, not the proxy", r.Entry.Name)
		})
	}
	for _, r := range routes {
		grantRead(ctx, env, r)
		Expect(r.Peer.Do(ctx, watch(r))).To(framework.HaveStatus(101), "a websocket watch as the allowed user, directly to %s", r.Peer.Name)
		// The same watch without the upgrade must work through the entry: only what upgrade
		// requests lose may count as the known deviation.
		Expect(r.Entry.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?watch=true&timeoutSeconds=1", As: framework.AsUser})).
			To(framework.HaveStatus(200), "a plain watch as the allowed user through %s", r.Entry.Name)
		// Only the documented deviation may be allowed: the peer not seeing the user, which
		// it answers 401 (upgradeIdentityLost). A 404, a 5xx or no answer fails.
		through := r.Entry.Do(ctx, watch(r))
		env.Deviation(framework.Observation{At: r.Entry, Status: through.Status}, func() {
			Expect(through).To(framework.HaveStatus(101), "a websocket watch as the allowed user through %s: the peer must see the user", r.Entry.Name)
		})
	}
}

// grantRead lets the unprivileged user read the route's resource, made through the peer,
// once the entry (which authorizes before it proxies) and every peer it may choose let it.
func grantRead(ctx context.Context, env *framework.Env, r framework.Route) {
	framework.GrantRead(ctx, env, r.Peer, r.GVR, append([]*framework.Endpoint{r.Entry}, r.Peers...)...)
}

// anonymousStaysAnonymous: a request without credentials must not borrow the proxy's.
// Anonymous may not list anything here: 401 or 403, as directly at the peer; and if the
// request reached the peer, the peer recorded system:anonymous.
func anonymousStaysAnonymous(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		path := r.GVR.CollectionPath(testNamespace())
		direct := r.Peer.Do(ctx, framework.Request{Path: path, As: framework.AsAnonymous})
		via := r.Entry.Do(ctx, framework.Request{Path: path, As: framework.AsAnonymous})
		Expect(direct.Status).To(BeElementOf(401, 403), "anonymous directly at %s", r.Peer.Name)
		Expect(via.Status).To(Equal(direct.Status), "anonymous through %s should be answered as directly at %s: %s", r.Entry.Name, r.Peer.Name, via)
		events, err := r.PeerAuditEvents(ctx, via.AuditID, 2*time.Second)
		Expect(err).NotTo(HaveOccurred())
		for _, ev := range events {
			Expect(ev.User.Username).To(Equal("system:anonymous"), "the peer saw an unauthenticated request as %s", ev.User.Username)
		}
	}
}

// impersonationNotAllowed: the unprivileged user asking to be an admin is refused.
func impersonationNotAllowed(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		req := framework.Request{Path: r.GVR.CollectionPath(testNamespace()), As: framework.AsUser,
			Header: map[string][]string{"Impersonate-User": {"system:admin"}, "Impersonate-Group": {"system:masters"},
				"Impersonate-Uid": {"0"}, "Impersonate-Extra-Scopes": {"all"}}}
		Expect(r.Peer.Do(ctx, req)).To(framework.HaveStatus(403), "Impersonate headers from %s directly at %s", r.Peer.UserName, r.Peer.Name)
		Expect(r.Entry.Do(ctx, req)).To(framework.HaveStatus(403), "Impersonate headers through %s from %s", r.Entry.Name, r.Entry.UserName)
	}
}
