package mvp

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// identityHopByHop are Connection headers naming what a proxy sets itself (identity,
// impersonation, the loop marker) or replaces (the client's Authorization): a proxy that
// sets its headers before removing the hop-by-hop headers would forward the request
// without them, with its own credentials and nobody's identity.
var identityHopByHop = []string{
	"X-Remote-User, X-Remote-Group, X-Remote-Uid, X-Remote-Extra-Scopes",
	"Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-Scopes",
	"Authorization",
	"X-Kubernetes-Peer-Proxied",
	strings.Join([]string{"X-Remote-User", "X-Remote-Group", "X-Remote-Uid", "X-Remote-Extra-Scopes",
		"Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Impersonate-Extra-Scopes", "X-Kubernetes-Peer-Proxied"}, ", "),
}

// hopByHopIdentity: naming the proxy's own headers in Connection changes nobody's identity.
// The proxy may refuse the request (400) or serve it as the user: upstream serves it, the
// reference refuses it. Served, the peer must see the user; a write the user is not
// granted stays denied, and so does anonymous's; an admin impersonating the user is still
// only the user.
func hopByHopIdentity(ctx context.Context, env *framework.Env, r framework.Route) {
	entry := framework.OverHTTP1(r.Entry)
	path := r.GVR.CollectionPath(testNamespace())
	obj := refusedWrite(r, "skewcheck-hop-by-hop")
	for _, named := range identityHopByHop {
		hop := map[string][]string{"Connection": {named}}
		resp := entry.Do(ctx, framework.Request{Path: path, As: framework.AsUser, Header: hop})
		Expect(resp.Status).To(BeElementOf(200, 400), "a read as the allowed user through %s with Connection: %s: %s", r.Entry.Name, named, resp)
		if resp.Status == 200 && r.PeerAuditLogs() {
			events, err := r.PeerAuditEvents(ctx, resp.AuditID, 5*time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(HaveLen(1), "the proxied read %s should be in the audit log of exactly one of the servers that serve %s (%s), once", resp.AuditID, r.GVR.Key(), r.PeerNames())
			Expect(events[0].User.Username).To(Equal(r.Entry.UserName),
				"the peer's user for a request naming %s in Connection: the proxy set the identity before the headers named in Connection were removed, so the request went as the proxy itself", named)
		}
		Expect(entry.Do(ctx, framework.Request{Method: "POST", Path: path, Body: obj, As: framework.AsUser, Header: hop}).Status).
			To(BeElementOf(400, 403), "a write the user is not granted, through %s with Connection: %s", r.Entry.Name, named)
		Expect(entry.Do(ctx, framework.Request{Method: "POST", Path: path, Body: obj, As: framework.AsAnonymous, Header: hop}).Status).
			To(BeElementOf(400, 401, 403), "an anonymous write through %s with Connection: %s", r.Entry.Name, named)
	}
	impersonating := map[string][]string{"Connection": {"Impersonate-User"}, "Impersonate-User": {r.Peer.UserName}}
	Expect(entry.Do(ctx, framework.Request{Method: "POST", Path: path, Body: obj, Header: impersonating}).Status).
		To(BeElementOf(400, 403), "the admin impersonating %s through %s with Connection: Impersonate-User must stay %s", r.Peer.UserName, r.Entry.Name, r.Peer.UserName)
}
