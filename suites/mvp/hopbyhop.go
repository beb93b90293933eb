package mvp

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// identityHopByHop are the headers a proxy sets itself (identity, impersonation, the loop
// marker), named by a client in Connection: a proxy that sets them before removing the
// hop-by-hop headers would forward the request without them.
var identityHopByHop = strings.Join([]string{"X-Remote-User", "X-Remote-Group", "X-Remote-Uid", "X-Remote-Extra-Scopes",
	"Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Impersonate-Extra-Scopes", "X-Kubernetes-Peer-Proxied"}, ", ")

// hopByHopIdentity: naming the proxy's own headers in Connection changes nobody's identity.
// The proxy may refuse the request (400) or serve it as the user: upstream serves it, the
// reference refuses it. Served, the peer must see the user; a write the user is not
// granted stays denied; an admin impersonating the user is still only the user.
func hopByHopIdentity(ctx context.Context, env *framework.Env, r framework.Route) {
	entry := framework.OverHTTP1(r.Entry)
	hop := map[string][]string{"Connection": {identityHopByHop}}
	path := r.GVR.CollectionPath(testNamespace)
	resp := entry.Do(ctx, framework.Request{Path: path, As: framework.AsUser, Header: hop})
	Expect(resp.Status).To(BeElementOf(200, 400), "a read as the allowed user through %s with Connection: %s: %s", r.Entry.Name, identityHopByHop, resp)
	if resp.Status == 200 && r.Peer.AuditLog != "" {
		events, err := r.Peer.AuditEvents(ctx, resp.AuditID, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		Expect(events).To(HaveLen(1), "the proxied read %s is not in %s's audit log", resp.AuditID, r.Peer.Name)
		Expect(events[0].User.Username).To(Equal(r.Entry.UserName), "the peer's user for a request naming identity headers in Connection")
	}
	obj := []byte(`{"metadata":{"name":"skewcheck-hop-by-hop"}}`)
	Expect(entry.Do(ctx, framework.Request{Method: "POST", Path: path, Body: obj, As: framework.AsUser, Header: hop}).Status).
		To(BeElementOf(400, 403), "a write the user is not granted, through %s with Connection: %s", r.Entry.Name, identityHopByHop)
	impersonating := map[string][]string{"Connection": {"Impersonate-User"}, "Impersonate-User": {r.Peer.UserName}}
	Expect(entry.Do(ctx, framework.Request{Method: "POST", Path: path, Body: obj, Header: impersonating}).Status).
		To(BeElementOf(400, 403), "the admin impersonating %s through %s with Connection: Impersonate-User must stay %s", r.Peer.UserName, r.Entry.Name, r.Peer.UserName)
}
