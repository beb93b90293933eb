package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters"
)

// FrontFunc puts what the command asked for (Plan.Front) in front of a cluster that has
// converged, and adds its endpoints to rec; stop removes it.
type FrontFunc func(ctx context.Context, c clusters.Cluster, front json.RawMessage, rec *Record) (stop func(), err error)

// Supervise is the detached process that owns a named cluster (see Create): it makes the
// cluster of the plan, records it, and holds it until ctx ends (SIGTERM from `cluster
// delete`), then deletes it. A provider's processes (embedded etcd, the apiservers) live
// in it or die with it.
func Supervise(ctx context.Context, name string, front FrontFunc) error {
	if err := SetSupervisor(name, os.Getpid()); err != nil {
		return err
	}
	var p Plan
	b, err := os.ReadFile(planPath(name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("the plan of cluster %q is damaged (%v): delete it with `skewcheck cluster delete --name %s`", name, err, name)
	}
	p.Spec.Name, p.Spec.Dir, p.Spec.Progress = name, filepath.Join(ClusterDir(name), "run"), os.Stdout
	c, err := clusters.New(ctx, p.Provider, p.Spec)
	if err != nil {
		return err
	}
	defer c.Delete()
	r, ok := c.(Recorded)
	if !ok {
		return fmt.Errorf("provider %s made cluster %q but cannot say what to record of it", p.Provider, name)
	}
	rec := r.Record()
	rec.Name, rec.Provider, rec.Supervisor = name, p.Provider, os.Getpid()
	if front != nil && len(p.Front) > 0 {
		stop, err := front(ctx, c, p.Front, &rec)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := Write(rec); err != nil {
		return err
	}
	<-ctx.Done()
	fmt.Println("stopping: apiservers first, then etcd")
	return c.Delete()
}
