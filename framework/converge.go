package framework

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// WaitReachable waits until, through every endpoint, every listable GVR that some endpoint
// serves answers anything but 404: the proxy paths the suites rely on are live. It is the
// convergence check for targets whose servers skewcheck does not wire itself (a proxy in
// front of each apiserver), read from the endpoints' own discovery, which it also records
// in each endpoint's Served (read where Refresh reads it).
func WaitReachable(ctx context.Context, t *Target, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	members := reachMembers(t)
	pending, err := discovery.AwaitReached(ctx, func() []discovery.Member { return members })
	switch {
	case len(pending) > 0:
		return fmt.Errorf("not converged within %v: still 404 through %s", timeout, strings.Join(pending, "; "))
	case err != nil:
		return fmt.Errorf("not converged within %v: %w", timeout, err)
	}
	return nil
}

// Unreached is one round of WaitReachable: "endpoint: gvr" for each listable GVR some
// endpoint serves that another answers 404 for, or does not answer, now. It records each
// endpoint's Served as WaitReachable does.
func Unreached(ctx context.Context, t *Target) ([]string, error) {
	return discovery.Unreached(ctx, reachMembers(t))
}

// reachMembers are t's endpoints as convergence sees them: each must reach what another
// serves.
func reachMembers(t *Target) []discovery.Member {
	members := make([]discovery.Member, len(t.Endpoints))
	for i, e := range t.Endpoints {
		members[i] = discovery.Member{Name: e.Name, MustReach: true,
			Served: func(ctx context.Context) (discovery.Set, error) {
				// From the apiserver behind a front when known (Endpoint.ServedFrom), as
				// Refresh reads it: through a front that lies in its nopeer view, every
				// server would seem to serve everything.
				set, err := discovery.Served(ctx, cmp.Or(e.ServedFrom, e.Admin))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", e.Name, err)
				}
				e.Served = set
				return set, nil
			},
			List: func(ctx context.Context, path string) (int, error) {
				r := e.Do(quiet(ctx), Request{Path: path}) // convergence polling is not a test's evidence
				if r.Err != "" {
					return 0, fmt.Errorf("%s", r.Err)
				}
				return r.Status, nil
			}}
	}
	return members
}
