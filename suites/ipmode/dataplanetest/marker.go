package dataplanetest

import (
	"context"
	"fmt"
)

// markerTries bounds the Services CreateMarker makes to get a NodePort no earlier Service
// had. Each try misses with the odds (ports handed out) / (ports in the range): a few
// dozen of the default range's 2768 in an ipmode run.
const markerTries = 8

// CreateMarker makes a BackedService whose NodePort no earlier Service of this dataplane
// had, so that its NodePort answering proves the dataplane has programmed this Service,
// and with it every change written before it. A reused NodePort proves nothing: the
// apiserver hands a deleted Service's NodePort out again at once (it picks at random
// among the free ones), and until the dataplane has synced that deletion the deleted
// Service's rule still answers on the port, reaching the same backends as every
// BackedService. kube-proxy syncs at most once a second by default, so a marker made
// right after another was deleted would answer at once, before the dataplane had seen it.
// A Service that got a reused NodePort is kept until delete, so that the apiserver cannot
// hand the same port back to the next try.
func (d *Dataplane) CreateMarker(ctx context.Context, name string) (svc *BackedService, delete func(context.Context), err error) {
	var made []func(context.Context)
	deleteAll := func(ctx context.Context) {
		for _, del := range made {
			del(ctx)
		}
	}
	var reusedPorts []int
	for i := 1; i <= markerTries; i++ {
		tryName := name
		if i > 1 {
			tryName = fmt.Sprintf("%s-%d", name, i)
		}
		svc, del, reused, err := d.createService(ctx, tryName)
		if err != nil {
			deleteAll(ctx)
			return nil, nil, err
		}
		made = append(made, del)
		if !reused {
			return svc, deleteAll, nil
		}
		reusedPorts = append(reusedPorts, svc.NodePort)
	}
	deleteAll(ctx)
	return nil, nil, fmt.Errorf("creating marker Service %s: each of %d Services got a NodePort an earlier Service of this dataplane had (%v), "+
		"whose old rule may still answer, so none could prove the dataplane had programmed it; is the apiserver's --service-node-port-range nearly used up?",
		name, markerTries, reusedPorts)
}

// handOut records a NodePort the apiserver gave a Service and reports whether an earlier
// Service had it.
func (d *Dataplane) handOut(port int) (before bool) {
	d.portsMu.Lock()
	defer d.portsMu.Unlock()
	if d.handedOut == nil {
		d.handedOut = map[int]bool{}
	}
	before = d.handedOut[port]
	d.handedOut[port] = true
	return before
}
