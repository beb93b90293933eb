package mvp

import (
	"context"
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// The suites talk raw HTTP through framework probes, never through a client library that
// might retry or rewrite: what the proxy answers is exactly what is asserted and recorded.

func objectPath(g discovery.GVR, ns, name string) string { return g.CollectionPath(ns) + "/" + name }

// testNamespace is where the tests make their objects: default, or the run's own namespace
// on a cluster skewcheck does not own.
func testNamespace() string { return framework.TestNamespace() }

// createVia creates a fixture object of g through e as admin, expects 201, and deletes it
// when the test ends (through the peer that serves it, so cleanup never depends on the proxy).
// It carries the run's labels: a skewed resource may be cluster-scoped.
func createVia(ctx context.Context, e, owner *framework.Endpoint, g discovery.GVR, name string) map[string]any {
	obj, ok := fixtures.Object(g, name, testNamespace())
	Expect(ok).To(BeTrue(), "no fixture for %s", g.Key())
	raw, _ := json.Marshal(obj.Object)
	body := framework.WithRunLabels(raw)
	resp := e.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(testNamespace()), Body: body})
	Expect(resp).To(framework.HaveStatus(201), "create %s through %s", g.Key(), e.Name)
	cleanupObject(owner, g, name)
	return decode(resp)
}

// cleanupObject deletes name of g through owner when the test ends. A DELETE that neither
// deletes it nor finds it gone fails the test: the object would be left in the cluster.
func cleanupObject(owner *framework.Endpoint, g discovery.GVR, name string) {
	ginkgo.DeferCleanup(func(ctx context.Context) {
		resp := owner.Do(ctx, framework.Request{Method: "DELETE", Path: objectPath(g, testNamespace(), name)})
		Expect(resp.Status).To(BeElementOf(200, 202, 404), "deleting %s %s through %s, which would leave it in the cluster: %s", g.Key(), name, owner.Name, resp)
	})
}

// refusedWrite is the body of a create the test expects refused: of a name of its own
// (prefix and a unique suffix), labelled as every object a test makes, and deleted through
// the peers when the test ends, should the proxy let it through (the test then fails, and
// the cluster keeps nothing of it). The cleanup deletes by name whether or not the create
// went through, so the name must be one nothing but this test ever made: a fixed one
// deleted whatever else bore it, another run's object or the user's (a skewed resource may
// be cluster-scoped), though the create had been refused.
func refusedWrite(r framework.Route, prefix string) []byte {
	name := fixtures.UniqueName(prefix)
	for _, p := range r.Peers {
		if r.GVR.Can("delete") { // else a DELETE is 405, and nothing could be removed anyway
			cleanupObject(p, r.GVR, name)
		}
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": name, "labels": framework.RunLabels()}})
	return body
}

func decode(r framework.Response) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal(r.Body, &m)).To(Succeed(), "decoding %s", r)
	return m
}

// meta returns metadata.<field> of a decoded object.
func meta(obj map[string]any, field string) any {
	m, _ := obj["metadata"].(map[string]any)
	return m[field]
}

// routeFor returns one route per entry endpoint whose GVR supports verbs and has a fixture.
func routesFor(env *framework.Env, verbs ...string) []framework.Route {
	routes := framework.Routes(env.Target, verbs...)
	if len(routes) == 0 {
		framework.SkipMissing(framework.FeatureSkew, framework.NoRoutes(env.Target, verbs...))
	}
	seen := map[string]bool{}
	var out []framework.Route
	for _, r := range routes {
		if !seen[r.Entry.Name] {
			seen[r.Entry.Name] = true
			out = append(out, r)
		}
	}
	return out
}
