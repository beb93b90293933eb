package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
	"github.com/skewcheck/skewcheck/scenarios/owners"
)

// discoveryFailure is the condition the namespace controller sets when its discovery of
// what to delete failed for some group (k8s.io/api core/v1 NamespaceDeletionDiscoveryFailure).
const discoveryFailure = corev1.NamespaceDeletionDiscoveryFailure

// namespaceDeleted: CTRL-010. A namespace of the test's own holds objects of every
// namespaced resource only some servers serve (made through a server that serves each)
// and a ConfigMap; it is deleted through the first endpoint. Leftovers are read through
// every server whose own (nopeer) view serves their resource. Within namespaceBound it
// must be gone, no read of it in between may show NamespaceDeletionDiscoveryFailure, and
// afterwards no object of it is read through a server that serves its resource, also once
// the namespace is made again (objects a controller never deleted stay in storage and
// come back with a namespace of the same name).
func namespaceDeleted(ctx context.Context, env *framework.Env) {
	routes := skewedOwners(env, true)
	first := env.Target.Endpoints[0]
	ns := fixtures.UniqueName("ctrl-ns")
	createNamespace(ctx, first, ns)
	ginkgo.DeferCleanup(func(ctx context.Context) { deleteNamespace(ctx, first, ns) })
	var objects []owners.Ref
	for _, r := range routes {
		for range 2 {
			o := createOwner(ctx, r, fixtures.UniqueName("ctrl-object"), ns)
			remove(r.Peer, o) // whatever the controller leaves, before the namespace goes again
			objects = append(objects, o)
		}
	}
	createDependentless(ctx, routes[0].Entry, ns)

	resp := first.Do(ctx, framework.Request{Method: "DELETE", Path: "/api/v1/namespaces/" + ns})
	Expect(resp.Status).To(BeElementOf(200, 202), "deleting namespace %s through %s: %s", ns, first.Name, resp)
	var failures []string
	gone, took := until(ctx, namespaceBound, func() bool {
		status, n := namespaceOf(ctx, first, ns)
		if n != nil {
			for _, c := range n.Status.Conditions {
				if c.Type == discoveryFailure && c.Status == corev1.ConditionTrue && !slices.Contains(failures, c.Message) {
					failures = append(failures, c.Message)
				}
			}
		}
		return status == 404
	})
	env.Measure("terminatingSeconds", took.Seconds())
	env.Measure("discoveryFailures", float64(len(failures)))
	// Through every server whose own (nopeer) view lists the resource: each reads storage
	// itself, so what one finds is there whatever any proxy does.
	var left []string
	for _, o := range objects {
		for _, e := range env.Target.Endpoints {
			if !e.Served.Has(o.GVR.Key()) {
				continue
			}
			if status, _ := owners.Get(ctx, e, o); status == 200 {
				left = append(left, fmt.Sprintf("%s (read through %s)", o, e.Name))
			}
		}
	}
	env.Measure("leftInStorage", float64(len(left)))
	Expect(failures).To(BeEmpty(), "namespace %s reported %s while it was deleted", ns, discoveryFailure)
	Expect(gone).To(BeTrue(), "namespace %s still there %v after its deletion (the bound is %v)", ns, took.Round(time.Second), namespaceBound)
	Expect(left).To(BeEmpty(), "objects of namespace %s left in storage after the namespace was deleted in %v", ns, took.Round(time.Second))

	createNamespace(ctx, first, ns)
	var back []string
	for _, r := range routes {
		resp := r.Peer.Do(ctx, framework.Request{Path: r.GVR.CollectionPath(ns)})
		Expect(resp).To(framework.HaveStatus(200), "listing %s in namespace %s (made again) through %s", r.GVR.Key(), ns, r.Peer.Name)
		var list struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		Expect(json.Unmarshal(resp.Body, &list)).To(Succeed(), "decoding %s", resp)
		for _, it := range list.Items {
			back = append(back, r.GVR.Key()+" "+it.Metadata.Name)
		}
	}
	Expect(back).To(BeEmpty(), "objects of the deleted namespace %s are back in it, made again", ns)
}

// createDependentless makes a ConfigMap in ns through e, an object every server serves,
// so the namespace holds more than the skewed resources.
func createDependentless(ctx context.Context, e *framework.Endpoint, ns string) {
	create(ctx, e, owners.ConfigMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"skewcheck": "namespaced"},
		"metadata": map[string]any{"name": fixtures.UniqueName("ctrl-cm"), "namespace": ns}})
}

func createNamespace(ctx context.Context, e *framework.Endpoint, ns string) {
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	resp := e.Do(ctx, framework.Request{Method: "POST", Path: "/api/v1/namespaces", Body: framework.WithRunLabels(body)})
	Expect(resp).To(framework.HaveStatus(201), "creating namespace %s through %s", ns, e.Name)
}

// namespaceOf reads namespace ns through e.
func namespaceOf(ctx context.Context, e *framework.Endpoint, ns string) (int, *corev1.Namespace) {
	resp := e.Do(ctx, framework.Request{Path: "/api/v1/namespaces/" + ns})
	if resp.Status != 200 {
		return resp.Status, nil
	}
	var n corev1.Namespace
	if json.Unmarshal(resp.Body, &n) != nil {
		return 0, nil
	}
	return 200, &n
}

// deleteNamespace deletes ns at the end of the test and waits for it to go: its objects
// were removed before (remove's cleanups run first), so the controller has nothing left
// to find; a namespace still there after the bound is said, not left silently.
func deleteNamespace(ctx context.Context, e *framework.Endpoint, ns string) {
	resp := e.Do(ctx, framework.Request{Method: "DELETE", Path: "/api/v1/namespaces/" + ns})
	Expect(resp.Status).To(BeElementOf(200, 202, 404, 409), "deleting namespace %s through %s: %s", ns, e.Name, resp)
	gone, took := until(ctx, namespaceBound, func() bool {
		status, _ := namespaceOf(ctx, e, ns)
		return status == 404
	})
	Expect(gone).To(BeTrue(), "namespace %s, emptied by the test, still there %v after its deletion at the end of the test", ns, took.Round(time.Second))
}
