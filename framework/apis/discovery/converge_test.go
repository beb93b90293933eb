package discovery

import (
	"context"
	"slices"
	"testing"
	"time"
)

func set(gvrs ...GVR) Set {
	s := Set{}
	for _, g := range gvrs {
		s[g.Key()] = g
	}
	return s
}

// A member that must reach a GVR only its peer serves is pending while it answers 404 for
// it; a member that does not proxy, and GVRs that cannot be listed, are never probed.
func TestUnreached(t *testing.T) {
	jobs := GVR{Group: "batch", Version: "v1", Resource: "jobs", Verbs: []string{"list"}}
	bindings := GVR{Group: "x.io", Version: "v1", Resource: "bindings", Verbs: []string{"create"}}
	status := map[string]int{}
	var probed []string
	member := func(name string, served Set, mustReach bool) Member {
		return Member{Name: name, MustReach: mustReach,
			Served: func(context.Context) (Set, error) { return served, nil },
			List: func(_ context.Context, path string) (int, error) {
				probed = append(probed, name+" "+path)
				return status[name], nil
			}}
	}
	members := []Member{
		member("old", set(), true), member("gate-off", set(), false), member("new", set(jobs, bindings), true),
	}
	status["old"] = 404
	pending, err := Unreached(context.Background(), members)
	if err != nil || !slices.Equal(pending, []string{"old: batch/v1/jobs"}) {
		t.Errorf("pending %v, %v", pending, err)
	}
	if !slices.Equal(probed, []string{"old " + jobs.Path() + "?limit=1"}) {
		t.Errorf("probed %v: only the proxying member, only listable GVRs", probed)
	}
	status["old"] = 403 // any answer but 404 is a live path
	if pending, _ := Unreached(context.Background(), members); len(pending) != 0 {
		t.Errorf("pending %v after the path went live", pending)
	}
}

func TestAwaitReachedGivesUpWithWhatIsPending(t *testing.T) {
	m := Member{Name: "old", MustReach: true,
		Served: func(context.Context) (Set, error) { return set(), nil },
		List:   func(context.Context, string) (int, error) { return 404, nil }}
	peer := Member{Name: "new", Served: func(context.Context) (Set, error) {
		return set(GVR{Group: "batch", Version: "v1", Resource: "jobs", Verbs: []string{"list"}}), nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	pending, _ := AwaitReached(ctx, func() []Member { return []Member{m, peer} })
	if !slices.Equal(pending, []string{"old: batch/v1/jobs"}) {
		t.Errorf("pending %v", pending)
	}
}
