package stack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"golang.org/x/mod/semver"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/framework"
)

// joinDataplane runs d against the target's newest endpoint and attaches it to the
// target. On a cluster the run made the dataplane is kube-proxy's own user
// (system:kube-proxy); elsewhere, where no CA can be signed with, it is the admin. On a
// cluster that lends one (kind) it runs on the newest apiserver's machine. Behind a front
// it watches the apiserver itself, as kube-proxy on that node would, not the front. A
// dataplane the machine cannot run is no error: Target.NoDataplane says why, and the
// tests that need one skip with it.
func joinDataplane(ctx context.Context, d Dataplane, r *Run, progress io.Writer) error {
	watched := newest(r.Target)
	server, admin := cmp.Or(watched.Behind, watched.Name), cmp.Or(watched.ServedFrom, watched.Admin)
	choice := d.Choice
	choice.WatchedVersion = watched.Version
	spec, err := dataplane.Make(d.Name, choice)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(d.Dir) // an image's container mounts it
	if err != nil {
		return err
	}
	var identity *rest.Config
	var machine *dataplane.Machine
	if p, ok := r.Cluster.(clusters.NodeProxier); ok {
		if identity, err = p.AsNodeProxier(admin); err != nil {
			return err
		}
		if m, ok := r.Cluster.(dataplane.Machines); ok {
			if machine, err = m.DataplaneMachine(ctx, server); err != nil {
				return err
			}
		}
	}
	dp, err := dataplane.Start(ctx, dataplane.Config{Spec: spec, Admin: admin, Identity: identity, Machine: machine, Dir: dir,
		SyncBound: d.SyncBound, Progress: progress})
	var unsupported dataplane.Unsupported
	if errors.As(err, &unsupported) {
		fmt.Fprintf(progress, "dataplane %s cannot run here: %s\n", spec.Name(), unsupported.Reason)
		r.Target.NoDataplane = "dataplane " + spec.Name() + " cannot run on this machine: " + unsupported.Reason
		return nil
	}
	if err != nil {
		return err
	}
	r.undo.push(dp.Close)
	r.Target.Dataplane = dp.Framework()
	return nil
}

// newest is the endpoint of the newest version: the dataplane watches it, and kube-proxy
// is of its version, so the dataplane is never newer than its apiserver (the skew policy).
func newest(t *framework.Target) *framework.Endpoint {
	best := t.Endpoints[0]
	for _, e := range t.Endpoints[1:] {
		if semver.Compare(e.Version, best.Version) > 0 {
			best = e
		}
	}
	return best
}
