package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/scenarios/faults"
	"github.com/skewcheck/skewcheck/scenarios/races"
)

// Runner makes the faults for a load on one route of a target, and says when one cannot
// be measured there: what `skewcheck chaos` and the chaos profile share, so both skip
// the same faults for the same reasons.
type Runner struct {
	Route   framework.Route
	Subject faults.Subject
	// Make makes a fault by name: faults.ByName on Subject unless a provider has a
	// variant of its own (containers' partition: the pod cut off the network).
	Make func(name string) (faults.Fault, error)
	// Probe, when set, is the route whose proxied traffic must pass the peer path for the
	// network faults to be measured, instead of Route: a CRD load's route is served by its
	// entry itself and never crosses the path, so it cannot show that the path is taken.
	Probe *framework.Route

	bypass *string // why the peer path is no place for faults, once checked ("": it is)
	// endpoints are the target's, to tell whether a server besides the faulted one serves
	// a GVR (alsoServedBy).
	endpoints []*framework.Endpoint
}

// NewRunner is a runner for faults on the server behind route.Peer, with the load
// entering by route.Entry.
func NewRunner(t *framework.Target, route framework.Route) *Runner {
	r := &Runner{Route: route, Subject: faults.NewSubject(t.Endpoints, route.Peer, route.Entry).Loading(route).WithRegistrar(registrarOf(t, route)),
		endpoints: t.Endpoints}
	r.Make = func(name string) (faults.Fault, error) { return faults.ByName(name, r.Subject) }
	return r
}

// Fault makes the named fault, or says why it is skipped: the subject lacks what the fault
// acts on (faults.Missing), the fault must bring a 503 but another server serves the
// route's GVR too, or the fault acts on the peer path and the target's peer traffic goes
// around it (PathBypassed, checked once, on the first such fault). err is anything else
// that went wrong making it.
func (r *Runner) Fault(ctx context.Context, name string) (f faults.Fault, skip string, err error) {
	f, err = r.Make(name)
	var missing *faults.Missing
	if errors.As(err, &missing) {
		return nil, missing.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	// A fault that must bring clients a 503 (faults.Unavailable) or hold one (Silent) takes
	// the GVR's only server away from the entry; with three servers or more another may
	// serve it too, and upstream's proxy picks among them at random, so about every second
	// request is answered 200 by the other: the 503 the verdict wants is not due. A load the
	// entry serves itself (an extension's) is not proxied, and no 503 is due anyway
	// (Expected). The callers pick routes one server serves alone; this says so if not.
	if faults.Expected(name) == faults.Unavailable || faults.Silent(name) {
		entryServes := r.Route.Entry != nil && r.Route.Entry.Served.Has(r.Route.GVR.Key())
		if others := r.alsoServedBy(r.Route.GVR, r.Route.Entry); len(others) > 0 && !entryServes {
			return f, fmt.Sprintf("%s is served by %s as well as by %s, the server %s acts on: the entry may send its requests there, so no 503 is due; a route into a GVR one server serves alone is needed",
				r.Route.GVR.Key(), strings.Join(others, ", "), r.faultedName(), name), nil
		}
	}
	if faults.OnPeerPath(name) {
		if why := r.pathBypassed(ctx); why != "" {
			return f, why, nil
		}
	}
	return f, "", nil
}

// alsoServedBy names the endpoints other than the faulted server (Route.Peer) and except
// that serve g themselves: where a request for g may be answered instead.
func (r *Runner) alsoServedBy(g discovery.GVR, except ...*framework.Endpoint) []string {
	var out []string
	for _, e := range r.endpoints {
		if e != r.Route.Peer && !slices.Contains(except, e) && e.Served.Has(g.Key()) {
			out = append(out, e.Name)
		}
	}
	return out
}

// faultedName names the server the faults act on, for a reason.
func (r *Runner) faultedName() string {
	if r.Route.Peer == nil {
		return "the faulted server"
	}
	return r.Route.Peer.Name
}

func (r *Runner) pathBypassed(ctx context.Context) string {
	if r.bypass == nil {
		why := ""
		if closed, err := faults.ByName("refused", r.Subject); err != nil {
			why = err.Error()
		} else {
			probe := r.Route
			if r.Probe != nil {
				probe = *r.Probe
			}
			if others := r.alsoServedBy(probe.GVR); len(others) > 0 {
				// With three servers or more: requests may be proxied to another server of
				// the GVR (or served by the entry), around the closed path, and the check
				// would call the path bypassed.
				why = fmt.Sprintf("the peer path into %s cannot be checked with %s, which %s serve(s) too: a request may go there instead", r.faultedName(), probe.GVR.Key(), strings.Join(others, ", "))
			} else {
				why = PathBypassed(ctx, probe, closed)
			}
		}
		r.bypass = &why
	}
	return *r.bypass
}

// registrarOf is how t's servers register, for the lease time faults: what t declares, or
// upstream's identity leases through the entry; nil when neither (those faults are then
// skipped as Missing).
func registrarOf(t *framework.Target, route framework.Route) framework.Registrar {
	if t.Unowned {
		return nil // a cluster skewcheck does not own keeps its registrations
	}
	if t.Registrar != nil {
		return t.Registrar
	}
	if t.Upstream && route.Entry != nil {
		if r, err := races.IdentityLeases(route.Entry); err == nil {
			return r
		}
	}
	return nil
}
