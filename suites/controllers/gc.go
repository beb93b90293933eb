package controllers

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/owners"
)

// dependentsPerOwner is enough to tell one wrong deletion from a policy applied.
const dependentsPerOwner = 2

// families makes one owner of each skewed resource, through a server that serves it, and
// its dependents through a server that does not (ConfigMaps every server serves): all
// removed when the test ends, whatever the controllers did.
func families(ctx context.Context, env *framework.Env) []owners.Family {
	ns := framework.TestNamespace()
	var out []owners.Family
	for _, r := range skewedOwners(env, false) {
		f, err := owners.Make(ctx, r, ns, dependentsPerOwner)
		if f.Owner.UID != "" {
			remove(r.Peer, f.Owner)
		}
		for _, d := range f.Dependents {
			remove(r.Entry, d)
		}
		Expect(err).NotTo(HaveOccurred())
		out = append(out, f)
	}
	if len(out) > 0 {
		// The collector must hold every dependent before an owner is deleted (an Orphan
		// deletion frees only those it holds).
		Expect(owners.AwaitCollectorCaughtUp(ctx, out[0].Route.Entry, ns, gcBound)).To(Succeed())
	}
	return out
}

// seenGone says, for each dependent, through which servers it was read as gone (404).
type seenGone map[string][]string

func (s seenGone) look(ctx context.Context, env *framework.Env, fs []owners.Family) {
	for _, f := range fs {
		for _, d := range f.Dependents {
			for _, e := range env.Target.Endpoints {
				if status, _ := owners.Get(ctx, e, d); status == 404 && !slices.Contains(s[d.String()], e.Name) {
					s[d.String()] = append(s[d.String()], e.Name)
				}
			}
		}
	}
}

func (s seenGone) describe() []string {
	var out []string
	for d, through := range s {
		out = append(out, fmt.Sprintf("%s (gone through %v)", d, through))
	}
	slices.Sort(out)
	return out
}

// dependentsKept: CTRL-001. While each owner stands, every dependent is read through every
// server for gcHold; a 404 is a dependent the collector deleted by mistake.
func dependentsKept(ctx context.Context, env *framework.Env) {
	fs := families(ctx, env)
	gone := seenGone{}
	until(ctx, gcHold, func() bool {
		gone.look(ctx, env, fs)
		return false // held in full
	})
	env.Measure("wronglyCollected", float64(len(gone)))
	for _, f := range fs {
		status, _ := owners.Get(ctx, f.Route.Peer, f.Owner)
		Expect(status).To(Equal(200), "the owner %s through %s, which serves it, after the hold", f.Owner, f.Route.Peer.Name)
	}
	Expect(gone.describe()).To(BeEmpty(), "dependents deleted while their owner stood (held %v, the collector's discovery sync is %v): the garbage collector found their owner absent",
		gcHold, gcSyncPeriod)
}

// Propagation policies (metav1.DeletionPropagation).
const (
	background = "Background"
	foreground = "Foreground"
	orphan     = "Orphan"
)

// deleted: CTRL-002 to CTRL-004. Each owner is deleted through a server that serves it
// with policy; within gcBound the owner must be gone through it and its dependents gone
// (Background, Foreground) or kept without their reference to it (Orphan), through every
// server.
func deleted(policy string) func(context.Context, *framework.Env) {
	return func(ctx context.Context, env *framework.Env) {
		fs := families(ctx, env)
		for _, f := range fs {
			deleteWith(ctx, f.Route.Peer, f.Owner, policy)
		}
		var left, ownersLeft, stillOwned []string
		gone := seenGone{}
		_, took := until(ctx, gcBound, func() bool {
			left, ownersLeft, stillOwned = nil, nil, nil
			gone = seenGone{}
			gone.look(ctx, env, fs)
			for _, f := range fs {
				if status, _ := owners.Get(ctx, f.Route.Peer, f.Owner); status != 404 {
					ownersLeft = append(ownersLeft, f.Owner.String())
				}
				for _, d := range f.Dependents {
					for _, e := range env.Target.Endpoints {
						status, u := owners.Get(ctx, e, d)
						if status != 200 {
							continue
						}
						left = append(left, fmt.Sprintf("%s through %s", d, e.Name))
						if slices.ContainsFunc(u.GetOwnerReferences(), func(o metav1.OwnerReference) bool { return string(o.UID) == f.Owner.UID }) {
							stillOwned = append(stillOwned, fmt.Sprintf("%s through %s", d, e.Name))
						}
					}
				}
			}
			if policy == orphan {
				return len(ownersLeft) == 0 && len(stillOwned) == 0
			}
			return len(ownersLeft) == 0 && len(left) == 0
		})
		env.Measure("ownersLeft", float64(len(ownersLeft)))
		env.Measure("seconds", took.Seconds())
		if policy == orphan {
			env.Measure("wronglyCollected", float64(len(gone)))
			env.Measure("stillOwned", float64(len(stillOwned)))
		} else {
			env.Measure("leftAfterDeletion", float64(len(left)))
		}
		Expect(ownersLeft).To(BeEmpty(), "owners deleted with propagationPolicy %s still there through the server that serves them after %v: the garbage collector did not finish their deletion",
			policy, took.Round(time.Second))
		if policy == orphan {
			Expect(gone.describe()).To(BeEmpty(), "dependents of owners deleted with propagationPolicy Orphan were deleted")
			Expect(stillOwned).To(BeEmpty(), "dependents still referencing owners deleted with propagationPolicy Orphan after %v", took.Round(time.Second))
			return
		}
		// left, not whether the wait ended: the failure prints how many reads found one.
		Expect(left).To(BeEmpty(), "dependents of owners deleted with propagationPolicy %s still there after %v", policy, took.Round(time.Second))
	}
}
