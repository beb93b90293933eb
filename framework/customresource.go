package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// crdPath is where CustomResourceDefinitions live.
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// CreateCRD creates, through e, the CRD serving g (a fixtures.CustomGVR). Every apiserver
// shares etcd, so every one of them serves g once its own apiextensions informer has
// established the CRD; e is only the server it was created through.
func CreateCRD(ctx context.Context, e *Endpoint, g discovery.GVR) error {
	r := e.Do(ctx, Request{Method: "POST", Path: crdPath, Body: WithRunLabels(fixtures.CRD(g))})
	if r.Status != 201 {
		return fmt.Errorf("creating the CRD %s through %s: %s; the admin must be able to create CRDs", fixtures.CRDName(g), e.Name, r.String())
	}
	return nil
}

// DeleteCRD deletes the CRD serving g through e, and with it every object of g.
func DeleteCRD(ctx context.Context, e *Endpoint, g discovery.GVR) Response {
	return e.Do(ctx, Request{Method: "DELETE", Path: crdPath + "/" + fixtures.CRDName(g)})
}

// AwaitGroupVersionGone waits, up to bound, until none of endpoints lists g's group-version
// any more in its own discovery (nopeer) or its merged one: a CRD's or an APIService's
// deletion is answered at once but finishes later (a CRD's objects are deleted first, then
// each server's discovery drops it), and a test that leaves it listed makes the next one see
// a group-version no server serves (the discovery profile's DISC-002 and DISC-005 did). It
// returns the endpoints still listing it.
func AwaitGroupVersionGone(ctx context.Context, endpoints []*Endpoint, g discovery.GVR, bound time.Duration) []string {
	deadline := time.Now().Add(bound)
	for {
		var listing []string
		for _, e := range endpoints {
			for _, accept := range []string{discovery.AggregatedV2NoPeer, discovery.AggregatedV2} {
				list, err := discovery.Fetch(ctx, e.Admin, "/apis", accept)
				if err != nil || discovery.FromList(list).HasGroupVersion(g.Group, g.Version) {
					listing = append(listing, e.Name)
					break
				}
			}
		}
		if len(listing) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return listing
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Served is what a list of a custom resource through an endpoint answered, from the
// CRD's creation until it answered 200.
type Served struct {
	// Statuses are the answers, in order (0: no answer).
	Statuses []int
	// AuditIDs are the requests' audit IDs, in the same order: which servers each reached
	// is in their audit logs.
	AuditIDs []string
	// After is how long after the poll began the first 200 came; 0 when none came.
	After time.Duration
}

// AwaitServed lists g through e every interval until it answers 200 or bound passes,
// recording every answer: a server that has not yet established a CRD made through another
// answers 404 until it has.
func AwaitServed(ctx context.Context, e *Endpoint, g discovery.GVR, interval, bound time.Duration) Served {
	var s Served
	start := time.Now()
	for {
		r := e.Do(ctx, Request{Path: g.CollectionPath(TestNamespace()) + "?limit=1"})
		s.Statuses = append(s.Statuses, r.Status)
		s.AuditIDs = append(s.AuditIDs, r.AuditID)
		if r.Status == 200 {
			s.After = time.Since(start)
			return s
		}
		if time.Since(start) > bound || ctx.Err() != nil {
			return s
		}
		time.Sleep(interval)
	}
}

// NewCRD creates, through origin, a CRD serving g for the running test, and deletes it
// through cleanupVia when the test ends (a server that stays up: origin may be down by
// then; cleanups run last-registered first, so a restart registered after this has run).
// The cleanup waits until no endpoint lists g any more (AwaitGroupVersionGone) and reads every
// endpoint's served set again (a restart's convergence may have read it while the CRD
// stood), so the tests after this one see the cluster as it was: left listed, the
// discovery profile met a group-version no server served (DISC-001, 002, 005).
func (env *Env) NewCRD(ctx context.Context, g discovery.GVR, origin, cleanupVia *Endpoint) {
	gomega.Expect(CreateCRD(ctx, origin, g)).To(gomega.Succeed())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		gomega.Expect(DeleteCRD(ctx, cleanupVia, g).Status).To(gomega.BeElementOf(200, 202), "deleting the CRD of %s through %s", g.Key(), cleanupVia.Name)
		gomega.Expect(AwaitGroupVersionGone(ctx, env.Target.Endpoints, g, env.Timeouts.Converge)).To(gomega.BeEmpty(),
			"servers still listing %s in their discovery %v after its CRD was deleted", g.GroupVersion(), env.Timeouts.Converge)
		gomega.Expect(env.Target.Refresh(ctx)).To(gomega.Succeed())
	})
}

// CRDWrites are what NewCRD writes, for the Makes of a test that calls it: the CRD, and
// with it the group its objects are made in (CRDObjectWrites).
var CRDWrites = []Write{{Resource: "customresourcedefinitions.apiextensions.k8s.io", Verbs: []string{"create", "delete"}, Scope: ClusterLabelled,
	Why: "a CRD of a group of its own per test (<name>.crd.skewcheck.io), which every apiserver serves; deleting it deletes its objects"}}

// CRDObjectWrites are the objects a test makes of a CRD NewCRD made.
var CRDObjectWrites = []Write{{Resource: "widgets.<name>.crd.skewcheck.io", Verbs: []string{"create"}, Scope: RunNamespace,
	Why: "objects of that CRD, deleted with it"}}
