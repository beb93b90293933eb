package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/front"
	_ "github.com/skewcheck/skewcheck/clusters/providers" // registers the providers Spec.Provider names
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/proxystate"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Build makes the stack of spec bottom to top, each layer registering how it is undone as
// it is made, and returns it standing. On an error it undoes what it made, newest first,
// and returns the error (with any failure of the undoing joined to it): nothing outlives
// a failed Build.
func Build(ctx context.Context, spec Spec) (*Run, error) {
	r := &Run{undo: &undo{}}
	if err := build(ctx, spec, r); err != nil {
		if uerr := r.undo.run(); uerr != nil {
			return nil, errors.Join(err, uerr)
		}
		return nil, err
	}
	return r, nil
}

func build(ctx context.Context, spec Spec, r *Run) (err error) {
	progress := cmp.Or[io.Writer](spec.Progress, io.Discard)
	if c := spec.Contexts; c != nil {
		if spec.Front != nil {
			return errors.New("stack: a front stands before the apiservers of a cluster a provider makes; endpoints named by Contexts are reached as they are: give a Provider and Cluster, or no Front")
		}
		r.Target, err = framework.FromKubeconfig(ctx, c.Kubeconfig, c.Admin, c.User)
	} else {
		r.Cluster, r.Target, err = cluster(ctx, spec, progress, r.undo)
	}
	if err != nil {
		return err
	}
	if spec.Amend != nil {
		if err := spec.Amend(r.Target); err != nil {
			return err
		}
	}
	if spec.Contexts != nil {
		if err := footprint(ctx, *spec.Contexts, r.Target, progress, r.undo); err != nil {
			return err
		}
	}
	if spec.ProxyState {
		r.ProxyState = proxystate.Read(ctx, r.Target)
		report.WriteProxyState(progress, r.ProxyState)
	}
	if spec.Dataplane != nil {
		return joinDataplane(ctx, *spec.Dataplane, r, progress)
	}
	return nil
}

// cluster makes (or finds) the cluster of spec and puts spec's front before it, and
// returns the target clients reach.
func cluster(ctx context.Context, spec Spec, progress io.Writer, u *undo) (clusters.Cluster, *framework.Target, error) {
	c, err := clusters.New(ctx, spec.Provider, spec.Cluster)
	if err != nil {
		return nil, nil, err
	}
	// A cluster of servers the spec chose is the run's, deleted as it ends; one found
	// (no servers chosen) loses only what the run made in it, as its provider tells.
	made := len(spec.Cluster.Servers) > 0
	u.push(func() error {
		if made {
			fmt.Fprintln(progress, "deleting the cluster")
		}
		return c.Delete()
	})
	if spec.Front == nil {
		t, err := c.Target(ctx)
		return c, t, err
	}
	if spec.FrontName != "" {
		fmt.Fprintf(progress, "starting %s in front of every apiserver\n", spec.FrontName)
	}
	t, stop, err := front.Before(ctx, spec.Provider, c, spec.Front)
	if err != nil {
		return c, nil, err
	}
	u.push(func() error {
		stop()
		return nil
	})
	return c, t, nil
}
