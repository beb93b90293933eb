package chaos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
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
	// LoadAggregated is an aggregated API's resource (framework/aggregated, on this
	// machine), its APIService registered through the faulted server. Every apiserver's
	// aggregator reaches the aggregated server itself, so as under LoadCRD every fault on
	// the server it was registered through expects faults.Unnoticed.
	LoadAggregated = "aggregated"
)

// loadNames are the loads by the names a user gives them, with what each is.
var loadNames = []struct{ name, load, description string }{
	{"sole", LoadSole, "a resource only the faulted server serves"},
	{LoadCRD, LoadCRD, "a CRD created through the faulted server"},
	{LoadAggregated, LoadAggregated, "an aggregated API registered through the faulted server"},
}

// ParseLoad is the load a user named: sole (LoadSole, also ""), crd or aggregated; an
// unknown name is an error listing the loads.
func ParseLoad(name string) (string, error) {
	var known []string
	for _, l := range loadNames {
		if name == l.name || name == l.load {
			return l.load, nil
		}
		known = append(known, l.name+" ("+l.description+")")
	}
	return "", fmt.Errorf("unknown load %q: the loads are %s", name, strings.Join(known, ", "))
}

// Expected is what clients must see under o's fault with o's load.
func Expected(o Outcome) faults.Expectation {
	if o.Load == LoadCRD || o.Load == LoadAggregated {
		return faults.Unnoticed
	}
	return faults.Expected(o.Fault)
}

// extensionSettle is how long an extension load waits once both servers serve its
// resource: proxies re-read their peers' discovery (the reference every second; upstream
// when an identity lease changes), and a proxy that takes an extension for a peer's does so
// only once it has read a peer's discovery listing it. Without the wait a fault could catch
// such a proxy still holding views from before the extension, and pass it.
const extensionSettle = 3 * time.Second

// ExtensionRoute makes the extension load names (LoadCRD, LoadAggregated) through origin,
// in a group of its own named by seed, and waits until the first other endpoint, the entry
// of the load, and origin both serve its resource, and then extensionSettle: the route
// whose Peer is origin although the entry serves the GVR too. remove undoes it through the
// entry, without waiting for discovery to drop it (the load is over by then).
func ExtensionRoute(ctx context.Context, t *framework.Target, origin *framework.Endpoint, load string, seed int64, bound time.Duration) (r framework.Route, remove func(context.Context) error, err error) {
	var entry *framework.Endpoint
	for _, e := range t.Endpoints {
		if e != origin {
			entry = e
			break
		}
	}
	if entry == nil {
		return r, nil, fmt.Errorf("a %s load needs a second server to enter by, besides %s", load, origin.Name)
	}
	prefix := fmt.Sprintf("chaos-%d-%d", seed, time.Now().UnixNano()%1_000_000)
	var g discovery.GVR
	var made string
	switch load {
	case LoadCRD:
		g = fixtures.CustomGVR(prefix)
		if err := framework.CreateCRD(ctx, origin, g); err != nil {
			return r, nil, err
		}
		made = "the CRD " + fixtures.CRDName(g)
		remove = func(ctx context.Context) error {
			if d := framework.DeleteCRD(ctx, entry, g); d.Status != 200 && d.Status != 202 {
				return fmt.Errorf("deleting the CRD %s through %s: %s", fixtures.CRDName(g), entry.Name, d.String())
			}
			return nil
		}
	case LoadAggregated:
		g = fixtures.AggregatedGVR(prefix)
		a, err := framework.StartAggregatedAPI(ctx, t, origin, g)
		if err != nil {
			return r, nil, err
		}
		made = "the aggregated API of APIService " + a.APIService
		remove = func(ctx context.Context) error { return a.Remove(ctx, entry) }
	default:
		return r, nil, fmt.Errorf("no extension load is called %q (%s or %s)", load, LoadCRD, LoadAggregated)
	}
	for _, e := range []*framework.Endpoint{origin, entry} {
		if s := framework.AwaitServed(ctx, e, g, 100*time.Millisecond, bound); s.After == 0 {
			_ = remove(ctx) // the error below says more
			return r, nil, fmt.Errorf("%s, made through %s, was not served through %s within %v (answers %v): are its informers (and, for an aggregated API, its availability check) running?",
				made, origin.Name, e.Name, bound, s.Statuses)
		}
	}
	time.Sleep(extensionSettle)
	return framework.Route{Entry: entry, Peer: origin, GVR: g}, remove, nil
}
