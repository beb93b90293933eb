package controllers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/scenarios/owners"
)

// The suite talks raw HTTP through framework probes, as the others do: what a server
// answers is what is asserted and recorded, with no client library's retries between.
// The owners and dependents are made as scenarios/owners makes them, which the rolling
// upgrade carries through its steps too.

// skewedOwners are one route per resource some servers serve and others do not, of which
// the test can create, read and delete an object: each route's Peer serves it. A target
// without one skips, saying what its skew lacks.
func skewedOwners(env *framework.Env, namespaced bool) []framework.Route {
	out := owners.Skewed(env.Target, namespaced)
	if len(out) == 0 {
		framework.SkipMissing(framework.FeatureSkew, framework.NoRoutes(env.Target, owners.Verbs...))
	}
	return out
}

// create makes obj through e and returns what the server made of it.
func create(ctx context.Context, e *framework.Endpoint, g discovery.GVR, obj map[string]any) owners.Ref {
	r, err := owners.Create(ctx, e, g, obj)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// createOwner makes an inert fixture of r's resource through its Peer.
func createOwner(ctx context.Context, r framework.Route, name, namespace string) owners.Ref {
	o, err := owners.CreateOwner(ctx, r, name, namespace)
	Expect(err).NotTo(HaveOccurred())
	return o
}

// remove deletes r through e when the test ends, whatever the controllers left of it
// (owners.Remove).
func remove(e *framework.Endpoint, r owners.Ref) {
	ginkgo.DeferCleanup(func(ctx context.Context) {
		Expect(owners.Remove(ctx, e, r)).To(Succeed())
	})
}

// deleteWith deletes r through e with a propagation policy and expects the server to accept it.
func deleteWith(ctx context.Context, e *framework.Endpoint, r owners.Ref, policy string) {
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": policy})
	resp := e.Do(ctx, framework.Request{Method: "DELETE", Path: r.Path(), Body: body})
	Expect(resp.Status).To(BeElementOf(200, 202), "deleting %s through %s with propagationPolicy %s: %s", r, e.Name, policy, resp)
}

// until polls cond every poll until it is true or bound has passed, and says how long it took.
func until(ctx context.Context, bound time.Duration, cond func() bool) (bool, time.Duration) {
	start := time.Now()
	for {
		if cond() {
			return true, time.Since(start)
		}
		if time.Since(start) > bound || ctx.Err() != nil {
			return false, time.Since(start)
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}
