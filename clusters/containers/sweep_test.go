package containers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestSweepRemovesLeftoversOfDeadRuns: a container named and labelled for a pid that is gone
// (a SIGKILLed run) is removed by the next run's sweep; this run's own is kept.
func TestSweepRemovesLeftoversOfDeadRuns(t *testing.T) {
	ctx := context.Background()
	r := requireEngine(t)
	image := emptyImage(t, r)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	host, _ := os.Hostname()
	leftover := create(t, r, image, fmt.Sprintf("skewcheck-%d-leftover", dead), map[string]string{OwnerLabel: fmt.Sprint(dead), HostLabel: host})
	ours := create(t, r, image, ContainerName("ours"), ownerLabels())
	defer r.remove(ctx, ours)
	r.sweep(ctx)
	if _, err := r.client().ContainerInspect(ctx, leftover, client.ContainerInspectOptions{}); !errdefs.IsNotFound(err) {
		r.remove(ctx, leftover)
		t.Errorf("the container of dead pid %d is still there (inspect: %v)", dead, err)
	}
	if _, err := r.client().ContainerInspect(ctx, ours, client.ContainerInspectOptions{}); err != nil {
		t.Errorf("this run's own container was swept: %v", err)
	}
}

// emptyImage imports an image with no files: containers are only created from it, never
// started, and nothing is pulled.
func emptyImage(t *testing.T, r *Runtime) string {
	ref := fmt.Sprintf("skewcheck-test/empty:%d", os.Getpid())
	importImage(t, r, ref)
	return ref
}

func create(t *testing.T, r *Runtime, image, name string, labels map[string]string) string {
	resp, err := r.client().ContainerCreate(context.Background(), client.ContainerCreateOptions{Name: name,
		Config: &container.Config{Image: image, Cmd: []string{"/never-started"}, Labels: labels}})
	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	return resp.ID
}

// requireEngine is the Docker engine an integration test works on, closed at its end; the
// test fails, saying why, where none is reachable (integration.RequireDocker).
func requireEngine(t *testing.T) *Runtime {
	t.Helper()
	integration.Require(t)
	var r *Runtime
	integration.RequireDocker(t, func() (err error) { r, err = Connect(context.Background()); return err })
	t.Cleanup(func() { r.Close() })
	return r
}
