package discovery

import (
	"context"
	"sort"
	"time"
)

// Member is one server (or the proxy in front of it) as convergence sees it.
type Member struct {
	Name string
	// Served reads what the member serves itself (nopeer discovery).
	Served func(ctx context.Context) (Set, error)
	// List answers the status of a list (limit=1) of a collection path through the member.
	List func(ctx context.Context, path string) (int, error)
	// MustReach says the member proxies: it must reach what the others serve and it does not.
	MustReach bool
}

// Unreached lists "member: gvr" for each GVR some member serves that a member which must
// reach it answers 404 for (or does not answer): the proxy path is not live yet. /readyz
// is not enough: right after it, a proxied request still gets 404 for a few seconds, until
// the server has seen its peers' leases and fetched their discovery. GVRs without the list
// verb are not probed.
func Unreached(ctx context.Context, members []Member) ([]string, error) {
	served := make([]Set, len(members))
	for i, m := range members {
		set, err := m.Served(ctx)
		if err != nil {
			return nil, err
		}
		served[i] = set
	}
	union := Union(served...)
	var pending []string
	for i, m := range members {
		if !m.MustReach {
			continue
		}
		for _, g := range served[i].Missing(union).Sorted() {
			if !g.Can("list") {
				continue
			}
			if code, err := m.List(ctx, g.Path()+"?limit=1"); err != nil || code == 404 {
				pending = append(pending, m.Name+": "+g.Key())
			}
		}
	}
	sort.Strings(pending)
	return pending, nil
}

// AwaitReached polls Unreached every 250ms until nothing is pending or ctx ends; members is
// asked anew each round (servers may stop or start meanwhile). On timeout it returns what
// was still pending, or the last error.
func AwaitReached(ctx context.Context, members func() []Member) (pending []string, err error) {
	for {
		pending, err = Unreached(ctx, members())
		if err == nil && len(pending) == 0 {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			if err == nil && len(pending) == 0 {
				err = ctx.Err()
			}
			return pending, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}
