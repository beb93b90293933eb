package mvp

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// unknownGroupVersion: no server serves it, so every endpoint answers its not-found
// handler's 404 `404 page not found`: plain text up to 1.37, a JSON Status from 1.38.
func unknownGroupVersion(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		Expect(e.Do(ctx, framework.Request{Path: "/apis/nosuchgroup.skewcheck.io/v1/things"})).To(framework.BeNoSuchGroupVersion(e.Version),
			"%s: a group-version no server serves", e.Name)
	}
}

// unknownResource: the group-version is served, the resource is not: a JSON Status 404.
func unknownResource(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		Expect(e.Do(ctx, framework.Request{Path: "/apis/apps/v1/nosuchresources"})).To(framework.BeStatus(404, "NotFound"),
			"%s: an unknown resource in apps/v1", e.Name)
	}
}

// crashedPeer: SIGKILL the peer; its identity lease lingers, so the entry still knows a
// server serves the GVR and must answer 503 (retry later), never 404 (no such thing).
func crashedPeer(ctx context.Context, env *framework.Env) {
	r := soleServerRoute(env)
	path := r.GVR.CollectionPath(testNamespace()) + "?limit=1"
	Expect(r.Entry.Do(ctx, framework.Request{Path: path})).To(framework.HaveStatus(200))
	env.RestartWhenDone(r.Peer)
	Expect(r.Peer.Node.Kill()).To(Succeed())
	killed := time.Now()
	// The bound is the refused one (a few seconds), not the unavailable one, because
	// upstream has nothing to wait for. The kernel closes a killed process's sockets, so the
	// entry's pooled connection to the peer fails at once and a new dial is refused. The
	// peer stays in the entry's peer discovery cache: that cache is rebuilt only when an
	// identity lease is added, deleted or changes holder (a36 pkg/util/peerproxy
	// peerproxy.go, the lease informer's handlers), and a crash does none of that, the lease living 3600 s (renewed
	// every 10 s; 1.28 to 1.32 go by StorageVersions, whose entry likewise outlives the
	// process). So the entry proxies, and the upgradeaware proxy's error responder answers
	// 503 text/plain "error trying to reach service" (a36 peerproxy_handler.go); once the
	// peer's endpoint lease expires in etcd (TTL 15 s) the address lookup fails instead:
	// 503 JSON Status. Either way the first request after the kill gets 503: measured
	// within 20 ms on 1.36.3 (upstream-facts.md).
	var seen []int
	Eventually(func() framework.Response {
		resp := r.Entry.Do(ctx, framework.Request{Path: path})
		seen = append(seen, resp.Status)
		return resp
	}).WithTimeout(env.Timeouts.Refused).WithPolling(100*time.Millisecond).Should(framework.BeServiceUnavailable(),
		"%s was killed (its connections are refused at once); %s should answer 503 for %s within %v", r.Peer.Name, r.Entry.Name, r.GVR.Key(), env.Timeouts.Refused)
	env.Measure("timeTo503Seconds", time.Since(killed).Seconds())
	Expect(seen).NotTo(ContainElement(404), "a spurious 404 while the peer that serves %s was down", r.GVR.Key())
	for i := 0; i < 5; i++ {
		Expect(r.Entry.Do(ctx, framework.Request{Path: path})).To(framework.BeServiceUnavailable())
	}
}

// soleServerRoute is a route whose GVR only its peer serves, so that stopping the peer
// leaves no live server for it.
func soleServerRoute(env *framework.Env) framework.Route {
	for _, r := range framework.SkewedGVRs(env.Target) {
		if !r.GVR.Can("list") {
			continue
		}
		if len(r.ServedBy(env.Target)) == 1 {
			return r
		}
	}
	ginkgo.Fail("no listable GVR is served by exactly one endpoint")
	return framework.Route{}
}

// loopGuard: the marker says "a peer already forwarded this"; the entry must serve it
// itself, which for a GVR it lacks means 404, as upstream's code answers (the KEP says
// 503: kep4020.MarkedNotServedLocally). The KEP's name for the marker,
// X-Kubernetes-APIServer-Rerouted, is in no version's code (kep4020.MarkerHeaderName): a
// request carrying it is an ordinary request, proxied, and a proxy that took it for the
// marker would answer such a client the very 404 the feature exists to prevent.
func loopGuard(ctx context.Context, env *framework.Env) {
	for _, r := range routesFor(env, "list") {
		path := r.GVR.CollectionPath(testNamespace()) + "?limit=1"
		Expect(r.Entry.Do(ctx, framework.Request{Path: path})).To(framework.HaveStatus(200))
		marked := r.Entry.Do(ctx, framework.Request{Path: path, Header: map[string][]string{"x-kubernetes-peer-proxied": {"true"}}})
		Expect(marked).To(framework.HaveStatus(404), "%s forwarded a request already marked as proxied", r.Entry.Name)
		kepNamed := r.Entry.Do(ctx, framework.Request{Path: path, Header: map[string][]string{"X-Kubernetes-APIServer-Rerouted": {"true"}}})
		Expect(kepNamed).To(framework.HaveStatus(200), "%s did not proxy a request carrying X-Kubernetes-APIServer-Rerouted, the KEP's name for the marker, which upstream's code neither sends nor reads", r.Entry.Name)
	}
}

// nonResourceLocal: /apis/<group>/<version> asked as a peer asks (marked already proxied)
// is the entry's own document: it lists only what the entry serves, or is 404 when the
// entry serves nothing of that group-version. This is the loop guard for documents: a
// proxy that answers legacy discovery for the control plane (DISC-005) forwards these
// marked, and must get the peer's own document back, never one forwarded or merged again.
func nonResourceLocal(ctx context.Context, env *framework.Env) {
	for _, r := range framework.SkewedGVRs(env.Target) {
		if r.GVR.Group == "" {
			continue // the core group is /api/v1, served by every server
		}
		status, resources, err := r.Entry.GroupVersionResources(ctx, r.GVR.Group, r.GVR.Version, true)
		Expect(err).NotTo(HaveOccurred())
		if !r.Entry.Served.HasGroupVersion(r.GVR.Group, r.GVR.Version) {
			Expect(status).To(Equal(404), "%s does not serve %s, and asked as already proxied must not fetch its document from a peer", r.Entry.Name, r.GVR.GroupVersion())
			continue
		}
		Expect(status).To(Equal(200))
		Expect(resources).NotTo(ContainElement(r.GVR.Resource), "%s's /apis/%s, asked as already proxied, lists %s, which only a peer serves: the document was proxied or merged",
			r.Entry.Name, r.GVR.GroupVersion(), r.GVR.Resource)
	}
}
