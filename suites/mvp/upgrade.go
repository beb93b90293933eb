package mvp

import (
	"context"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// upgradeAnswers: an upgrade request, SPDY or websocket, gets through the proxy the answer
// an apiserver gives it, with the user's identity. The local clusters have no kubelets, so
// the upgrades are ones an apiserver answers itself: exec in a pod that does not exist
// (served locally: 404 to the admin, 403 to a user without a grant, whose identity must
// so reach the apiserver) and a watch of a GVR only a peer serves (a watch ignores an SPDY
// upgrade and streams as usual), answered as the peer answers it directly.
func upgradeAnswers(ctx context.Context, env *framework.Env) {
	exec := "/api/v1/namespaces/" + testNamespace() + "/pods/skewcheck-no-such-pod/exec?command=true&stdout=true"
	for _, e := range env.Target.Endpoints {
		via := framework.OverHTTP1(e)
		for kind, h := range framework.UpgradeHeaders() {
			method := "POST"
			if kind == "websocket" {
				method = "GET"
			}
			Expect(via.Do(ctx, framework.Request{Method: method, Path: exec, Header: h})).To(framework.BeStatus(404, "NotFound"),
				"%s exec in a missing pod as the admin through %s", kind, e.Name)
			if e.User == nil {
				continue
			}
			denied := via.Do(ctx, framework.Request{Method: method, Path: exec, Header: h, As: framework.AsUser})
			Expect(denied).To(framework.BeStatus(403, "Forbidden"), "%s exec in a missing pod through %s as a user RBAC grants nothing", kind, e.Name)
			if e.AuditLog == "" {
				continue
			}
			// Denied as the user, not as anonymous or as the proxy: the apiserver saw who asked.
			events, err := e.AuditEvents(ctx, denied.AuditID, 5*time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(HaveLen(1), "the %s exec %s is not in the audit log of %s's apiserver", kind, denied.AuditID, e.Name)
			Expect(events[0].User.Username).To(Equal(e.UserName), "who %s's apiserver saw asking for a %s exec", e.Name, kind)
		}
	}
	for _, r := range routesFor(env, "list", "watch") {
		grantRead(ctx, env, r)
		for kind, h := range framework.UpgradeHeaders() {
			if kind == "websocket" {
				continue // MVP-045 covers the websocket watch
			}
			req := framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?watch=true&timeoutSeconds=1", As: framework.AsUser, Header: h}
			direct := framework.OverHTTP1(r.Peer).Do(ctx, req)
			Expect(direct).To(framework.HaveStatus(200), "an %s-upgrade watch as the allowed user, directly at %s", kind, r.Peer.Name)
			// Only the status is the deviation's (upgradeIdentityLost: 401 through the entry);
			// a watch that is answered is asserted in full, whatever the target.
			got := framework.OverHTTP1(r.Entry).Do(ctx, req)
			env.Deviation(framework.Observation{At: r.Entry, Status: got.Status}, func() {
				Expect(got).To(framework.HaveStatus(200), "an %s-upgrade watch as the allowed user through %s", kind, r.Entry.Name)
			})
			if got.Status != 200 || !r.PeerAuditLogs() {
				continue // the known deviation, observed: the peer saw no user to check
			}
			events, err := r.PeerAuditEvents(ctx, got.AuditID, 5*time.Second)
			Expect(err).NotTo(HaveOccurred())
			Expect(events).To(HaveLen(1), "the proxied watch %s should be in the audit log of exactly one of the servers that serve %s (%s), once", got.AuditID, r.GVR.Key(), r.PeerNames())
			Expect(events[0].User.Username).To(Equal(r.Peer.UserName), "the user %s's watch reached %s", r.Peer.UserName, r.PeerNames())
		}
	}
}
