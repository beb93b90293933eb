// Package owners makes what the garbage collector acts on during skew: owners of resources
// only some servers serve, and ConfigMaps (every server serves them) that reference them,
// through raw framework probes, so what a server answers is what the caller records. The
// controllers profile (suites/controllers) and the rolling upgrade (scenarios/upgrade)
// both make them here: one way of making an owner and its dependents, whichever judges
// what the collector did with them.
package owners

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// ConfigMaps are the dependents' resource: every server serves it, so a dependent's
// absence is the collector's doing, not a server's gap.
var ConfigMaps = discovery.GVR{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// Ref is an object made here: where it lives and its UID.
type Ref struct {
	GVR             discovery.GVR
	Namespace, Name string
	UID             string
}

// Path is the object's URL path.
func (r Ref) Path() string { return r.GVR.CollectionPath(r.Namespace) + "/" + r.Name }

func (r Ref) String() string {
	if r.GVR.Namespaced {
		return fmt.Sprintf("%s %s/%s", r.GVR.Key(), r.Namespace, r.Name)
	}
	return fmt.Sprintf("%s %s", r.GVR.Key(), r.Name)
}

// Verbs are what the callers do to an owner: make it, read it, delete it, and patch its
// finalizers away when a collector leaves it Terminating.
var Verbs = []string{"create", "get", "delete", "patch"}

// Skewed are one route per resource some servers of t serve and others do not, of which
// an object can be made, read and deleted (Verbs): each route's Peer serves it, its Entry
// does not. namespaced keeps the namespaced ones only.
func Skewed(t *framework.Target, namespaced bool) []framework.Route {
	seen := map[string]bool{}
	var out []framework.Route
	for _, r := range framework.Routes(t, Verbs...) {
		if seen[r.GVR.Key()] || (namespaced && !r.GVR.Namespaced) {
			continue
		}
		seen[r.GVR.Key()] = true
		out = append(out, r)
	}
	return out
}

// inert makes a fixture object no controller acts on by itself: a Job is suspended, so
// the job controller makes no Pod of it (the fixtures are written for clusters without
// controllers).
func inert(u *unstructured.Unstructured) {
	if u.GetKind() == "Job" {
		unstructured.SetNestedField(u.Object, true, "spec", "suspend")
	}
}

// Create makes obj of g through e and returns what the server made of it.
func Create(ctx context.Context, e *framework.Endpoint, g discovery.GVR, obj map[string]any) (Ref, error) {
	raw, _ := json.Marshal(obj)
	u := unstructured.Unstructured{Object: obj}
	resp := e.Do(ctx, framework.Request{Method: "POST", Path: g.CollectionPath(u.GetNamespace()), Body: framework.WithRunLabels(raw)})
	if resp.Status != 201 {
		return Ref{}, fmt.Errorf("creating %s %s through %s: %s", g.Key(), u.GetName(), e.Name, resp)
	}
	var made unstructured.Unstructured
	if err := json.Unmarshal(resp.Body, &made.Object); err != nil {
		return Ref{}, fmt.Errorf("decoding what %s made of %s %s: %w", e.Name, g.Key(), u.GetName(), err)
	}
	return Ref{GVR: g, Namespace: made.GetNamespace(), Name: made.GetName(), UID: string(made.GetUID())}, nil
}

// CreateOwner makes an inert fixture of r's resource through its Peer, which serves it.
func CreateOwner(ctx context.Context, r framework.Route, name, namespace string) (Ref, error) {
	u, ok := fixtures.Object(r.GVR, name, namespace)
	if !ok {
		return Ref{}, fmt.Errorf("no fixture for %s: skewcheck cannot make an owner of it", r.GVR.Key())
	}
	inert(u)
	return Create(ctx, r.Peer, r.GVR, u.Object)
}

// CreateDependent makes a ConfigMap through e owned by owner. blockOwnerDeletion makes a
// foreground deletion of the owner wait for it, as a Pod's reference to its ReplicaSet does.
func CreateDependent(ctx context.Context, e *framework.Endpoint, owner Ref, name, namespace string) (Ref, error) {
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"skewcheck": "dependent"},
		"metadata": map[string]any{"name": name, "namespace": namespace, "ownerReferences": []any{map[string]any{
			"apiVersion": owner.GVR.GroupVersion(), "kind": owner.GVR.Kind, "name": owner.Name, "uid": owner.UID,
			"blockOwnerDeletion": true,
		}}}}
	return Create(ctx, e, ConfigMaps, obj)
}

// Get reads r through e: the status, and the object when it is there. Another object of
// the name (another UID) is a 404: this one is gone.
func Get(ctx context.Context, e *framework.Endpoint, r Ref) (int, *unstructured.Unstructured) {
	resp := e.Do(ctx, framework.Request{Path: r.Path()})
	if resp.Status != 200 {
		return resp.Status, nil
	}
	var u unstructured.Unstructured
	if err := json.Unmarshal(resp.Body, &u.Object); err != nil {
		return 0, nil
	}
	if string(u.GetUID()) != r.UID && r.UID != "" {
		return 404, nil
	}
	return 200, &u
}

// Remove deletes r through e, whatever the controllers left of it: its finalizers are
// patched away first (an owner a collector never finished stays Terminating with them),
// and a 404 is fine.
func Remove(ctx context.Context, e *framework.Endpoint, r Ref) error {
	if status, u := Get(ctx, e, r); status == 200 && len(u.GetFinalizers()) > 0 {
		resp := e.Do(ctx, framework.Request{Method: "PATCH", Path: r.Path(), Body: []byte(`{"metadata":{"finalizers":null}}`),
			Header: map[string][]string{"Content-Type": {"application/merge-patch+json"}}})
		if resp.Status != 200 && resp.Status != 404 {
			return fmt.Errorf("removing the finalizers of %s through %s, which would leave it: %s", r, e.Name, resp)
		}
	}
	resp := e.Do(ctx, framework.Request{Method: "DELETE", Path: r.Path()})
	if resp.Status != 200 && resp.Status != 202 && resp.Status != 404 {
		return fmt.Errorf("deleting %s through %s, which would leave it in the cluster: %s", r, e.Name, resp)
	}
	return nil
}

// Family is an owner of a skewed resource and its dependents, and the servers they were
// made through.
type Family struct {
	Route      framework.Route
	Owner      Ref
	Dependents []Ref
}

// Make makes one owner of r's resource in namespace through r.Peer, which serves it, and
// n dependents of it through r.Entry, which does not. On an error the family holds what
// was made, for the caller to remove.
func Make(ctx context.Context, r framework.Route, namespace string, n int) (Family, error) {
	f := Family{Route: r}
	var err error
	if f.Owner, err = CreateOwner(ctx, r, fixtures.UniqueName("ctrl-owner"), namespace); err != nil {
		return f, err
	}
	for range n {
		d, err := CreateDependent(ctx, r.Entry, f.Owner, fixtures.UniqueName("ctrl-dependent"), namespace)
		if err != nil {
			return f, err
		}
		f.Dependents = append(f.Dependents, d)
	}
	return f, nil
}
