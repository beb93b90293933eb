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
	routes := routesFor(env, "list", "watch")
	spdyWatch := func(r framework.Route, h map[string][]string) framework.Request {
		return framework.Request{Path: r.GVR.CollectionPath(testNamespace()) + "?watch=true&timeoutSeconds=1", As: framework.AsUser, Header: h}
	}
	// Before any grant the user may not watch: a proxy that forwards a proxied upgrade as
	// itself, or as anyone but the user, gets 200 where the peer must answer 403, with or
	// without audit logs. Upstream's 401 (the peer sees no user) is the known deviation.
	// Every route is asked before the first grant: with three servers two share a GVR.
	for _, r := range routes {
		for kind, h := range framework.UpgradeHeaders() {
			if kind == "websocket" {
				continue // MVP-045 covers the websocket watch
			}
			for _, p := range r.Peers {
				Expect(framework.OverHTTP1(p).Do(ctx, spdyWatch(r, h))).To(framework.HaveStatus(403), "an %s-upgrade watch as the ungranted user, directly at %s", kind, p.Name)
			}
			ungranted := framework.OverHTTP1(r.Entry).Do(ctx, spdyWatch(r, h))
			env.Deviation(framework.Observation{At: r.Entry, Status: ungranted.Status}, func() {
				Expect(ungranted).To(framework.HaveStatus(403), "an %s-upgrade watch as the ungranted user through %s: the peer must authorize the user, not the proxy", kind, r.Entry.Name)
			})
		}
	}
	for _, r := range routes {
		grantRead(ctx, env, r)
		for kind, h := range framework.UpgradeHeaders() {
			if kind == "websocket" {
				continue // MVP-045 covers the websocket watch
			}
			req := spdyWatch(r, h)
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
