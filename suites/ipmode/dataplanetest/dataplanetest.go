// Package dataplanetest is what the ipmode profile does to a service dataplane under test
// (framework.Dataplane, which the target declares and a provider fills): it writes
// Services of the topology's backends, as a controller-manager would for pods, writes
// their load-balancer status, as a cloud provider would, and sends probes that say which
// way each request went. It is the suite's toolkit, not the framework's: no other profile
// drives a dataplane. Tests of the topology itself (clusters/dataplane's) use it too.
package dataplanetest

import (
	"runtime"
	"sync"
	"weak"

	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
)

// Dataplane is a target's framework.Dataplane with what the tests do to it. For gives
// values sharing one state for the same framework.Dataplane, so that what it remembers (the
// NodePorts handed out, CreateMarker's) holds across the tests of a run.
type Dataplane struct {
	*framework.Dataplane
	*state
}

// state is what the toolkit remembers of one framework.Dataplane. It holds no reference
// to it, so the record of a run's dataplane goes once the run does (For).
type state struct {
	csOnce sync.Once
	cs     kubernetes.Interface
	csErr  error

	// handedOut are the NodePorts CreateService has been given, those of deleted Services
	// too: CreateMarker refuses them (marker.go).
	portsMu   sync.Mutex
	handedOut map[int]bool
}

// states maps each framework.Dataplane, held weakly, to its state; an entry is deleted
// once its dataplane is unreachable, so a process running many runs (the campaigns, the
// tests) does not keep every run's.
var states sync.Map // weak.Pointer[framework.Dataplane] -> *state

// For is d with the toolkit, sharing d's state (nil for nil: a target without a dataplane).
func For(d *framework.Dataplane) *Dataplane {
	if d == nil {
		return nil
	}
	key := weak.Make(d)
	st, loaded := states.LoadOrStore(key, &state{})
	if !loaded {
		runtime.AddCleanup(d, func(k weak.Pointer[framework.Dataplane]) { states.Delete(k) }, key)
	}
	return &Dataplane{Dataplane: d, state: st.(*state)}
}

// clientset is the admin's client, made once: tests create many Services.
func (d *Dataplane) clientset() (kubernetes.Interface, error) {
	d.csOnce.Do(func() { d.cs, d.csErr = kubernetes.NewForConfig(d.Admin) })
	return d.cs, d.csErr
}
