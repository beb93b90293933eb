package mvp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// Custom resources are never a peer's. Every apiserver shares etcd, so a CRD created
// through one is served by every one once its own apiextensions informer has established
// it: a server that has not yet answers 404 (honest: it does not serve it yet), and one
// that has serves it itself. Upstream (1.35+) leaves the group-versions of every CRD and
// aggregated APIService out of the peer discovery cache its routing reads (k8s.io/kubernetes
// v1.36.3 pkg/controlplane/apiserver/aggregator.go:137-148, :213-243; k8s.io/apiserver
// v0.36.3 pkg/util/peerproxy/peer_discovery.go:280-296, gv_exclusion_manager.go:399-429):
// PR kubernetes#135675. Its local discovery cache is refreshed only every 30 minutes
// (peerproxy.go:50), so without that exclusion a CRD made after start would be forwarded to
// the servers whose discovery lists it.

// newCRD creates a CRD of a group of its own through origin for the running test, deleted
// through cleanupVia when it ends (framework.Env.NewCRD).
func newCRD(ctx context.Context, env *framework.Env, origin, cleanupVia *framework.Endpoint) discovery.GVR {
	g := fixtures.CustomGVR(fixtures.UniqueName("mvp"))
	env.NewCRD(ctx, g, origin, cleanupVia)
	return g
}

// crdJustCreated: right after a CRD is created through the first endpoint, its resource
// asked through every other endpoint answers 404 until that server has established it, then
// 200, and 200 again for as long as a killed peer takes to be noticed (Refused: long enough
// for a proxy to have re-read its peers' discovery, which by then lists the CRD): never a
// 503 or anything else, and no request, a write included, reaches another server's audit
// log (none is proxied).
func crdJustCreated(ctx context.Context, env *framework.Env) {
	origin := env.Target.Endpoints[0]
	g := newCRD(ctx, env, origin, origin)
	servedByEachItself(ctx, env, g, origin, "until it has established the CRD the honest answer is 404, and a 503 says it went to a peer", 404)
}

// servedByEachItself: g, just made through origin (a CRD or an aggregated API, which every
// server serves itself), asked through every other endpoint answers one of before until
// 200, then every read 200 and every write 201 for Refused; no request reaches another
// server's audit log. why says why only before may come first.
func servedByEachItself(ctx context.Context, env *framework.Env, g discovery.GVR, origin *framework.Endpoint, why string, before ...int) {
	for _, e := range env.Target.Endpoints {
		if e == origin {
			continue
		}
		s := framework.AwaitServed(ctx, e, g, 50*time.Millisecond, env.Timeouts.Converge)
		Expect(s.After).NotTo(BeZero(), "%s made through %s: %s never answered 200 for it within %v (answers %v)", g.Key(), origin.Name, e.Name, env.Timeouts.Converge, s.Statuses)
		env.Measure("servedAfterSeconds", s.After.Seconds())
		env.Measure("answersBefore200", float64(len(s.Statuses)-1))
		for i, st := range s.Statuses[:len(s.Statuses)-1] {
			Expect(st).To(BeElementOf(before), "answer %d of %v: %s answered %d for %s just made through %s; %s", i, s.Statuses, e.Name, st, g.Key(), origin.Name, why)
		}
		ids := s.AuditIDs
		served := time.Now()
		for time.Since(served) < env.Timeouts.Refused {
			r := e.Do(ctx, framework.Request{Path: g.CollectionPath(testNamespace()) + "?limit=1"})
			Expect(r).To(framework.HaveStatus(200), "%s answered 200 for %s, then this %.1f s later", e.Name, g.Key(), time.Since(served).Seconds())
			w := e.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(testNamespace()), Body: widget(g, fixtures.UniqueName("w"))})
			Expect(w).To(framework.HaveStatus(201), "create a %s through %s once it serves it", g.Kind, e.Name)
			ids = append(ids, r.AuditID, w.AuditID)
			time.Sleep(250 * time.Millisecond)
		}
		expectServedBy(ctx, env, e, ids)
	}
}

// crdOriginDown: with the CRD established everywhere, the server it was created through
// killed: its resource through every other endpoint still answers every read 200 and every
// write 201 (no server but the entry's own is needed), for as long as a killed peer takes
// to be noticed (Refused).
func crdOriginDown(ctx context.Context, env *framework.Env) {
	origin, other := env.Target.Endpoints[0], env.Target.Endpoints[1]
	g := newCRD(ctx, env, origin, other)
	for _, e := range env.Target.Endpoints {
		s := framework.AwaitServed(ctx, e, g, 50*time.Millisecond, env.Timeouts.Converge)
		Expect(s.After).NotTo(BeZero(), "%s never answered 200 for %s within %v (answers %v)", e.Name, g.Key(), env.Timeouts.Converge, s.Statuses)
	}
	before := fixtures.UniqueName("before")
	Expect(origin.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(testNamespace()), Body: widget(g, before)})).To(framework.HaveStatus(201))
	env.RestartWhenDone(origin)
	Expect(origin.Node.Kill()).To(Succeed())
	killed := time.Now()
	for n := 0; time.Since(killed) < env.Timeouts.Refused; n++ {
		// Named per surviving endpoint too: with three servers or more, each creates its own.
		for i, e := range env.Target.Endpoints[1:] {
			Expect(e.Do(ctx, framework.Request{Path: g.CollectionPath(testNamespace()) + "?limit=1"})).To(framework.HaveStatus(200),
				"list %s through %s %.1f s after %s (where its CRD was created) was killed, while it is down: %s serves it itself", g.Key(), e.Name, time.Since(killed).Seconds(), origin.Name, e.Name)
			Expect(e.Do(ctx, framework.Request{Path: objectPath(g, testNamespace(), before)})).To(framework.HaveStatus(200),
				"get the %s created through %s, through %s, while %s is down: %s serves it itself", g.Kind, origin.Name, e.Name, origin.Name, e.Name)
			Expect(e.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(testNamespace()), Body: widget(g, fmt.Sprintf("down-%d-%d", i+1, n))})).To(framework.HaveStatus(201),
				"create a %s through %s while %s is down: %s serves it itself", g.Kind, e.Name, origin.Name, e.Name)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// widget is the body of a new object of g named name.
func widget(g discovery.GVR, name string) []byte {
	obj, _ := fixtures.Object(g, name, testNamespace())
	b, _ := json.Marshal(obj.Object)
	return b
}

// expectServedBy checks that the requests with ids, sent through entry, reached no other
// server: none is in another server's audit log. The entry's own log is read first (with a
// wait), so the last request is on disk everywhere it went.
func expectServedBy(ctx context.Context, env *framework.Env, entry *framework.Endpoint, ids []string) {
	_, err := entry.AuditEvents(ctx, ids[len(ids)-1], 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	for _, other := range env.Target.Endpoints {
		if other == entry {
			continue
		}
		for _, id := range ids {
			events, err := other.AuditEvents(ctx, id, 0)
			Expect(err).NotTo(HaveOccurred())
			if len(events) > 0 {
				ginkgo.Fail(fmt.Sprintf("request %s through %s reached %s too (%s %s, answered %d there): an extension (a CRD's or an aggregated API's resource, every server's own) was proxied to a peer",
					id, entry.Name, other.Name, events[0].Verb, events[0].RequestURI, events[0].ResponseStatus.Code))
			}
		}
	}
}
