package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
)

// Recorded is a cluster that says what its record holds (the local and kind providers'
// clusters): servers, contexts, kubeconfig, timings.
type Recorded interface {
	Record() Record
}

// Plan is what Create hands to a detached supervisor, through the cluster's directory.
type Plan struct {
	Provider string        `json:"provider"`
	Spec     clusters.Spec `json:"spec"`
	// Front is what the command puts in front of the cluster once it has converged, in the
	// command's own terms (Supervise hands it back).
	Front json.RawMessage `json:"front,omitempty"`
}

func planPath(name string) string { return filepath.Join(ClusterDir(name), "plan.json") }

// Create makes the named cluster on the plan's provider and returns its record. A
// provider whose clusters live on by themselves (clusters.Lasting) makes it here;
// any other gets a supervisor: this executable run again with supervise (its arguments,
// e.g. "cluster", "supervise", "--name", name) in a session of its own, which calls
// Supervise and outlives this process. Progress goes to out. On failure, or when ctx ends
// first, nothing is left.
func Create(ctx context.Context, name string, p Plan, supervise []string, out io.Writer) (Record, error) {
	if err := CheckName(name); err != nil {
		return Record{}, err
	}
	prov, err := clusters.Lookup(p.Provider)
	if err != nil {
		return Record{}, err
	}
	if err := clusters.Require(p.Provider, append(p.Spec.Needs(), clusters.Named)...); err != nil {
		return Record{}, err
	}
	if len(p.Front) > 0 {
		if err := clusters.Require(p.Provider, clusters.NamedFronts); err != nil {
			return Record{}, err
		}
	}
	if prov.Preflight != nil {
		if err := prov.Preflight(); err != nil {
			return Record{}, err
		}
	}
	if err := claimName(name, out); err != nil {
		return Record{}, err
	}
	p.Spec.Name = name
	if prov.Lasting != nil {
		return createLasting(ctx, name, p, out)
	}
	b, err := json.Marshal(p)
	if err == nil {
		err = os.WriteFile(planPath(name), b, 0o600)
	}
	if err != nil {
		Remove(name)
		return Record{}, fmt.Errorf("writing the plan of cluster %q: %w", name, err)
	}
	return startSupervisor(ctx, name, supervise, out)
}

// createLasting makes a cluster no process holds, its files under the cluster's directory.
func createLasting(ctx context.Context, name string, p Plan, out io.Writer) (Record, error) {
	p.Spec.Dir, p.Spec.Progress = filepath.Join(ClusterDir(name), p.Provider), out
	c, err := clusters.New(ctx, p.Provider, p.Spec)
	if err != nil {
		Remove(name)
		return Record{}, err
	}
	r, ok := c.(Recorded)
	if !ok {
		c.Delete()
		Remove(name)
		return Record{}, fmt.Errorf("provider %s made cluster %q but cannot say what to record of it", p.Provider, name)
	}
	rec := r.Record()
	rec.Name, rec.Provider, rec.Supervisor = name, p.Provider, 0
	if err := Write(rec); err != nil {
		c.Delete()
		Remove(name)
		return Record{}, err
	}
	return rec, nil
}

// claimName makes the cluster's directory, refusing a name a live cluster has and
// cleaning up after one whose supervisor died.
func claimName(name string, out io.Writer) error {
	dir := ClusterDir(name)
	if _, err := os.Stat(dir); err == nil {
		if rec, err := Read(name); err == nil && lasting(rec.Provider) != nil {
			return ErrExists{Name: name, Provider: rec.Provider}
		}
		if pid := Supervisor(name); pid != 0 {
			return ErrExists{Name: name, Supervisor: pid}
		}
		fmt.Fprintf(out, "removing the remains of an earlier cluster %q whose supervisor is gone\n", name)
		if err := Remove(name); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("making the cluster directory %s: %w", dir, err)
	}
	return nil
}

// lasting is the provider's Lasting, nil for an unknown provider or one whose clusters a
// supervisor holds.
func lasting(provider string) clusters.Lasting {
	p, err := clusters.Lookup(provider)
	if err != nil {
		return nil
	}
	return p.Lasting
}

// startSupervisor starts the supervisor in its own session, so the cluster outlives this
// process, and relays its progress until the cluster converged or failed.
func startSupervisor(ctx context.Context, name string, args []string, out io.Writer) (Record, error) {
	self, err := os.Executable()
	if err != nil {
		Remove(name)
		return Record{}, err
	}
	logf, err := os.Create(SupervisorLog(name))
	if err != nil {
		Remove(name)
		return Record{}, err
	}
	defer logf.Close()
	sup := exec.Command(self, args...)
	sup.Stdout, sup.Stderr = logf, logf
	sup.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sup.Start(); err != nil {
		Remove(name)
		return Record{}, fmt.Errorf("starting the cluster supervisor: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- sup.Wait() }()
	follow, _ := os.Open(SupervisorLog(name))
	defer follow.Close()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		io.Copy(out, follow)
		if rec, err := Read(name); err == nil {
			return rec, nil
		}
		select {
		case err := <-exited:
			io.Copy(out, follow)
			Remove(name)
			return Record{}, fmt.Errorf("cluster %q was not created (supervisor exited: %v); nothing is left running", name, err)
		case <-ctx.Done():
			sup.Process.Signal(syscall.SIGTERM)
			<-exited
			Remove(name)
			return Record{}, fmt.Errorf("cluster %q was not created: %v; everything it started was stopped", name, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// ErrNoCluster is a name no cluster has, recorded or not.
var ErrNoCluster = errors.New("there is no cluster of that name")

// ErrExists is a name a live cluster has: one a provider keeps, or one a supervisor holds.
type ErrExists struct {
	Name, Provider string
	Supervisor     int
}

func (e ErrExists) Error() string {
	if e.Supervisor != 0 {
		return fmt.Sprintf("a cluster named %q already exists (supervisor pid %d)", e.Name, e.Supervisor)
	}
	return fmt.Sprintf("a cluster named %q already exists (provider %s)", e.Name, e.Provider)
}
