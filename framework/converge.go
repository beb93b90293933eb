package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/framework/discovery"
)

// WaitReachable waits until, through every endpoint, every listable GVR that some endpoint
// serves answers anything but 404: the proxy paths the suites rely on are live. It is the
// convergence check for targets whose servers skewcheck does not wire itself (a proxy in
// front of each apiserver), read from the endpoints' own discovery.
func WaitReachable(ctx context.Context, t *Target, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		pending, err := unreachable(ctx, t)
		if err == nil && len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("not converged within %v: %w", timeout, err)
			}
			return fmt.Errorf("not converged within %v: still 404 through %s", timeout, strings.Join(pending, "; "))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func unreachable(ctx context.Context, t *Target) ([]string, error) {
	var sets []discovery.Set
	for _, e := range t.Endpoints {
		set, err := discovery.Served(ctx, e.Admin)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		e.Served = set
		sets = append(sets, set)
	}
	union := discovery.Union(sets...)
	var pending []string
	for _, e := range t.Endpoints {
		for _, g := range e.Served.Missing(union).Sorted() {
			if !g.Can("list") {
				continue
			}
			r := e.Do(ctx, Request{Path: g.Path() + "?limit=1"})
			Evidence.Take() // convergence polling is not a test's evidence
			if r.Err != "" || r.Status == 404 {
				pending = append(pending, e.Name+": "+g.Key())
			}
		}
	}
	sort.Strings(pending)
	return pending, nil
}
