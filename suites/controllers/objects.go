package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// The suite talks raw HTTP through framework probes, as the others do: what a server
// answers is what is asserted and recorded, with no client library's retries between.

var configMaps = discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// ref is an object the test made: where it lives and its UID.
type ref struct {
	GVR             discovery.GVR
	Namespace, Name string
	UID             string
}

func (r ref) path() string { return r.GVR.CollectionPath(r.Namespace) + "/" + r.Name }

func (r ref) String() string {
	if r.GVR.Namespaced {
		return fmt.Sprintf("%s %s/%s", r.GVR.Key(), r.Namespace, r.Name)
	}
	return fmt.Sprintf("%s %s", r.GVR.Key(), r.Name)
}

// skewedOwners are one route per resource some servers serve and others do not, of which
// the test can create, read and delete an object: each route's Peer serves it. A target
// without one skips, saying what its skew lacks.
func skewedOwners(env *framework.Env, namespaced bool) []framework.Route {
	verbs := []string{"create", "get", "delete", "patch"}
	seen := map[string]bool{}
	var out []framework.Route
	for _, r := range framework.Routes(env.Target, verbs...) {
		if seen[r.GVR.Key()] || (namespaced && !r.GVR.Namespaced) {
			continue
		}
		seen[r.GVR.Key()] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		framework.SkipMissing(framework.FeatureSkew, framework.NoRoutes(env.Target, verbs...))
	}
	return out
}

// inert is a fixture object that no controller acts on by itself: a Job is suspended, so
// the job controller makes no Pod of it (the fixtures are written for clusters without
// controllers).
func inert(u *unstructured.Unstructured) {
	if u.GetKind() == "Job" {
		unstructured.SetNestedField(u.Object, true, "spec", "suspend")
	}
}

// create makes obj through e and returns what the server made of it.
func create(ctx context.Context, e *framework.Endpoint, g discovery.GVR, obj map[string]any) ref {
	raw, _ := json.Marshal(obj)
	u := unstructured.Unstructured{Object: obj}
	resp := e.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(u.GetNamespace()), Body: framework.WithRunLabels(raw)})
	Expect(resp).To(framework.HaveStatus(201), "creating %s %s through %s", g.Key(), u.GetName(), e.Name)
	var made unstructured.Unstructured
	Expect(json.Unmarshal(resp.Body, &made.Object)).To(Succeed(), "decoding %s", resp)
	return ref{GVR: g, Namespace: made.GetNamespace(), Name: made.GetName(), UID: string(made.GetUID())}
}

// createOwner makes an inert fixture of r's resource through its Peer.
func createOwner(ctx context.Context, r framework.Route, name, namespace string) ref {
	u, ok := fixtures.Object(r.GVR, name, namespace)
	Expect(ok).To(BeTrue(), "no fixture for %s", r.GVR.Key())
	inert(u)
	return create(ctx, r.Peer, r.GVR, u.Object)
}

// createDependent makes a ConfigMap through e owned by owner. blockOwnerDeletion makes a
// foreground deletion of the owner wait for it, as a Pod's reference to its ReplicaSet does.
func createDependent(ctx context.Context, e *framework.Endpoint, owner ref, name, namespace string) ref {
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"skewcheck": "dependent"},
		"metadata": map[string]any{"name": name, "namespace": namespace, "ownerReferences": []any{map[string]any{
			"apiVersion": owner.GVR.GroupVersion(), "kind": owner.GVR.Kind, "name": owner.Name, "uid": owner.UID,
			"blockOwnerDeletion": true,
		}}}}
	return create(ctx, e, configMaps, obj)
}

// get reads r through e: the status, and the object when it is there.
func get(ctx context.Context, e *framework.Endpoint, r ref) (int, *unstructured.Unstructured) {
	resp := e.Do(ctx, framework.Request{Path: r.path()})
	if resp.Status != 200 {
		return resp.Status, nil
	}
	var u unstructured.Unstructured
	if err := json.Unmarshal(resp.Body, &u.Object); err != nil {
		return 0, nil
	}
	if string(u.GetUID()) != r.UID && r.UID != "" {
		return 404, nil // another object of the name: this one is gone
	}
	return 200, &u
}

// remove deletes r through e when the test ends, whatever the controllers left of it: its
// finalizers are patched away first (an owner a collector never finished stays
// Terminating with them), and a 404 is fine.
func remove(e *framework.Endpoint, r ref) {
	ginkgo.DeferCleanup(func(ctx context.Context) {
		if status, u := get(ctx, e, r); status == 200 && len(u.GetFinalizers()) > 0 {
			resp := e.Do(ctx, framework.Request{Method: "PATCH", Path: r.path(), Body: []byte(`{"metadata":{"finalizers":null}}`),
				Header: map[string][]string{"Content-Type": {"application/merge-patch+json"}}})
			Expect(resp.Status).To(BeElementOf(200, 404), "removing the finalizers of %s through %s, which would leave it: %s", r, e.Name, resp)
		}
		resp := e.Do(ctx, framework.Request{Method: "DELETE", Path: r.path()})
		Expect(resp.Status).To(BeElementOf(200, 202, 404), "deleting %s through %s, which would leave it in the cluster: %s", r, e.Name, resp)
	})
}

// deleteWith deletes r through e with a propagation policy and expects the server to accept it.
func deleteWith(ctx context.Context, e *framework.Endpoint, r ref, policy string) {
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": policy})
	resp := e.Do(ctx, framework.Request{Method: "DELETE", Path: r.path(), Body: body})
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
