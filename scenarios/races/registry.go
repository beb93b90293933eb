package races

import (
	"context"
	"fmt"
	"strings"
)

// Race is one registration race as it registers: the name a run selects it by, what
// route it needs, and its run. The races command and the races profile read this list,
// so a race added here is selectable with no other edit.
type Race struct {
	Name string
	// AnyRoute: the race acts on no server (its registration is no server's), so any
	// proxied route shows whether it disturbs requests; otherwise it acts on the route's
	// peer, and its documented outcome holds only when no other server serves the GVR.
	AnyRoute bool
	Run      func(context.Context, Env) Outcome
}

var registry = []Race{
	{Name: "registering", Run: Registering},
	{Name: "stale-lease", Run: StaleLease},
	{Name: "same-identity", Run: SameIdentity},
	{Name: "lease-deleted", Run: LeaseDeleted},
	{Name: "dead-address", AnyRoute: true, Run: DeadAddress},
}

// Names are the races, in the order they run.
func Names() []string {
	out := make([]string, len(registry))
	for i, r := range registry {
		out[i] = r.Name
	}
	return out
}

// ByName is the race registered as name.
func ByName(name string) (Race, error) {
	for _, r := range registry {
		if r.Name == name {
			return r, nil
		}
	}
	return Race{}, fmt.Errorf("unknown race %q: the races are %s", name, strings.Join(Names(), ", "))
}
