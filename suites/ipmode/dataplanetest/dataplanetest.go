// Package dataplanetest is what the ipmode profile does to a service dataplane under test
// (framework.Dataplane, which the target declares and a provider fills): it writes
// Services of the topology's backends, as a controller-manager would for pods, writes
// their load-balancer status, as a cloud provider would, and sends probes that say which
// way each request went. It is the suite's toolkit, not the framework's: no other profile
// drives a dataplane. Tests of the topology itself (clusters/dataplane's) use it too.
package dataplanetest

import (
	"sync"

	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
)

// Dataplane is a target's framework.Dataplane with what the tests do to it. For gives the
// same value for the same framework.Dataplane, so that what it remembers (the NodePorts
// handed out, CreateMarker's) holds across the tests of a run.
type Dataplane struct {
	*framework.Dataplane

	csOnce sync.Once
	cs     kubernetes.Interface
	csErr  error

	// handedOut are the NodePorts CreateService has been given, those of deleted Services
	// too: CreateMarker refuses them (marker.go).
	portsMu   sync.Mutex
	handedOut map[int]bool
}

var (
	forMu sync.Mutex
	forD  = map[*framework.Dataplane]*Dataplane{}
)

// For is d with the toolkit, one value per d (nil for nil: a target without a dataplane).
func For(d *framework.Dataplane) *Dataplane {
	if d == nil {
		return nil
	}
	forMu.Lock()
	defer forMu.Unlock()
	if w, ok := forD[d]; ok {
		return w
	}
	w := &Dataplane{Dataplane: d}
	forD[d] = w
	return w
}

// clientset is the admin's client, made once: tests create many Services.
func (d *Dataplane) clientset() (kubernetes.Interface, error) {
	d.csOnce.Do(func() { d.cs, d.csErr = kubernetes.NewForConfig(d.Admin) })
	return d.cs, d.csErr
}
