package chaos

import (
	"context"
	"errors"

	"github.com/skewcheck/skewcheck/framework"
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
}

// NewRunner is a runner for faults on the server behind route.Peer, with the load
// entering by route.Entry.
func NewRunner(t *framework.Target, route framework.Route) *Runner {
	r := &Runner{Route: route, Subject: faults.NewSubject(t.Endpoints, route.Peer, route.Entry).Loading(route).WithRegistrar(registrarOf(t, route))}
	r.Make = func(name string) (faults.Fault, error) { return faults.ByName(name, r.Subject) }
	return r
}

// Fault makes the named fault, or says why it is skipped: the subject lacks what the fault
// acts on (faults.Missing), or the fault acts on the peer path and the target's peer
// traffic goes around it (PathBypassed, checked once, on the first such fault). err is
// anything else that went wrong making it.
func (r *Runner) Fault(ctx context.Context, name string) (f faults.Fault, skip string, err error) {
	f, err = r.Make(name)
	var missing *faults.Missing
	if errors.As(err, &missing) {
		return nil, missing.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	if faults.OnPeerPath(name) {
		if why := r.pathBypassed(ctx); why != "" {
			return f, why, nil
		}
	}
	return f, "", nil
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
			why = PathBypassed(ctx, probe, closed)
		}
		r.bypass = &why
	}
	return *r.bypass
}

// registrarOf is how t's servers register, for the lease time faults: what t declares, or
// upstream's identity leases through the entry; nil when neither (those faults are then
// skipped as Missing).
func registrarOf(t *framework.Target, route framework.Route) framework.Registrar {
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
