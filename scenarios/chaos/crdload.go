package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// Loads: what the load of a measurement reads and writes.
const (
	// LoadSole (the default) is a GVR only the faulted server serves: clients of another
	// server must be told it is unavailable (the fault's own Expect).
	LoadSole = ""
	// LoadCRD is a CRD's resource, the CRD created through the faulted server. Every
	// apiserver shares etcd and serves an established CRD itself, so whatever happens to
	// the server it was created through, clients of another must not notice: every fault
	// expects faults.Unnoticed. A proxy that forwards custom resources to the server whose
	// discovery listed them first (upstream before kubernetes#135675's exclusion, or the
	// reference's proxy-custom-resources flaw) answers 503 instead.
	LoadCRD = "crd"
)

// Expected is what clients must see under o's fault with o's load.
func Expected(o Outcome) faults.Expectation {
	if o.Load == LoadCRD {
		return faults.Unnoticed
	}
	return faults.Expected(o.Fault)
}

// crdSettle is how long the load waits once both servers serve the CRD: proxies re-read
// their peers' discovery (the reference every second; upstream when an identity lease
// changes), and a proxy that takes the CRD for a peer's does so only once it has read a
// peer's discovery listing it. Without the wait a fault could catch such a proxy still
// holding views from before the CRD, and pass it.
const crdSettle = 3 * time.Second

// CRDRoute creates a CRD of a group of its own (named by seed) through origin, waits until
// the first other endpoint, the entry of the load, and origin both serve its resource, and
// then crdSettle: the route of LoadCRD, whose Peer is origin although the entry serves the
// GVR too. remove deletes the CRD through the entry, and with it every object of it.
func CRDRoute(ctx context.Context, t *framework.Target, origin *framework.Endpoint, seed int64, bound time.Duration) (r framework.Route, remove func(context.Context), err error) {
	var entry *framework.Endpoint
	for _, e := range t.Endpoints {
		if e != origin {
			entry = e
			break
		}
	}
	if entry == nil {
		return r, nil, fmt.Errorf("a CRD load needs a second server to enter by, besides %s", origin.Name)
	}
	g := fixtures.CustomGVR(fmt.Sprintf("chaos-%d-%d", seed, time.Now().UnixNano()%1_000_000))
	if err := framework.CreateCRD(ctx, origin, g); err != nil {
		return r, nil, err
	}
	remove = func(ctx context.Context) { framework.DeleteCRD(ctx, entry, g) }
	for _, e := range []*framework.Endpoint{origin, entry} {
		if s := framework.AwaitServed(ctx, e, g, 100*time.Millisecond, bound); s.After == 0 {
			remove(ctx)
			return r, nil, fmt.Errorf("the CRD %s, created through %s, was not served through %s within %v (answers %v): is its apiextensions informer running?",
				fixtures.CRDName(g), origin.Name, e.Name, bound, s.Statuses)
		}
	}
	time.Sleep(crdSettle)
	return framework.Route{Entry: entry, Peer: origin, GVR: g}, remove, nil
}
