package stack

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// fakeProvider is registered once for these tests: it hands out the cluster a test
// prepared under the spec's name.
const fakeProvider = "stack-test"

var prepared = map[string]*fakeCluster{}

func init() {
	clusters.Register(clusters.Provider{Name: fakeProvider, Description: "a cluster of nothing, for stack's tests",
		Capabilities: []clusters.Capability{clusters.VendorFronts},
		New: func(_ context.Context, s clusters.Spec) (clusters.Cluster, error) {
			return prepared[s.Name], nil
		}})
}

// fakeCluster is a cluster of one endpoint that a front can stand before.
type fakeCluster struct {
	log       *[]string
	deleteErr error
}

func (c *fakeCluster) Target(context.Context) (*framework.Target, error) {
	return &framework.Target{Endpoints: []*framework.Endpoint{{Name: "apiserver-1", Version: "v1.36.0"}}}, nil
}
func (c *fakeCluster) WaitConverged(context.Context) error { return nil }
func (c *fakeCluster) Delete() error {
	*c.log = append(*c.log, "cluster deleted")
	return c.deleteErr
}
func (c *fakeCluster) FrontSite(context.Context) (*clusters.FrontSite, error) {
	return &clusters.FrontSite{}, nil
}

// fakeFront records its start and stop, or fails to start.
type fakeFront struct {
	log     *[]string
	failPut error
}

func (fakeFront) Capability() clusters.Capability { return clusters.VendorFronts }
func (f fakeFront) Put(context.Context, *clusters.FrontSite) (*framework.Target, func(), error) {
	if f.failPut != nil {
		return nil, nil, f.failPut
	}
	*f.log = append(*f.log, "front started")
	return &framework.Target{Kind: "fake-front"}, func() { *f.log = append(*f.log, "front stopped") }, nil
}

// newSpec is a spec of a made cluster of one server on the fake provider, named name,
// with the cluster's log and the stack's progress.
func newSpec(name string) (Spec, *fakeCluster, *strings.Builder) {
	c := &fakeCluster{log: &[]string{}}
	prepared[name] = c
	progress := &strings.Builder{}
	return Spec{Provider: fakeProvider, Progress: progress,
		Cluster: clusters.Spec{Name: name, Servers: []clusters.ServerSpec{{Version: "v1.36.0"}}}}, c, progress
}

// A built stack's target is the front's; Close stops the front, then deletes the cluster
// (saying so), once.
func TestCloseUndoesTheFrontThenTheCluster(t *testing.T) {
	spec, c, progress := newSpec("front")
	log := c.log
	spec.Front, spec.FrontName = fakeFront{log: log}, "the fake front"
	r, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if r.Target.Kind != "fake-front" || r.Cluster == nil {
		t.Errorf("target %+v, cluster %v; want the front's target and the cluster", r.Target, r.Cluster)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if want := []string{"front started", "front stopped", "cluster deleted"}; !slices.Equal(*log, want) {
		t.Errorf("log %v, want %v", *log, want)
	}
	if want := "starting the fake front in front of every apiserver\ndeleting the cluster\n"; progress.String() != want {
		t.Errorf("progress %q, want %q", progress.String(), want)
	}
}

// A cluster found rather than made (no servers chosen) is not said to be deleted: its
// provider tells what it removes.
func TestCloseOfAFoundClusterSaysNothing(t *testing.T) {
	spec, c, progress := newSpec("found")
	spec.Cluster.Servers = nil
	r, err := Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil || progress.String() != "" || !slices.Equal(*c.log, []string{"cluster deleted"}) {
		t.Errorf("Close: %v, progress %q, log %v; want the cluster deleted, nothing said", err, progress.String(), *c.log)
	}
}

// A Build that fails after making the cluster deletes it and returns why it failed, with
// a failure of the deletion joined.
func TestFailedBuildUndoesWhatItMade(t *testing.T) {
	spec, c, _ := newSpec("failed-front")
	errFront, errDelete := errors.New("the front would not start"), errors.New("the cluster would not go")
	spec.Front, c.deleteErr = fakeFront{log: c.log, failPut: errFront}, errDelete
	if _, err := Build(context.Background(), spec); !errors.Is(err, errFront) || !errors.Is(err, errDelete) {
		t.Errorf("Build: %v, want the front's failure and the deletion's", err)
	}
	if want := []string{"cluster deleted"}; !slices.Equal(*c.log, want) {
		t.Errorf("log %v, want %v", *c.log, want)
	}

	spec, c, _ = newSpec("failed-amend")
	log := c.log
	spec.Front = fakeFront{log: log}
	errAmend := errors.New("no audit log there")
	spec.Amend = func(*framework.Target) error { return errAmend }
	if _, err := Build(context.Background(), spec); !errors.Is(err, errAmend) {
		t.Errorf("Build: %v, want Amend's failure", err)
	}
	if want := []string{"front started", "front stopped", "cluster deleted"}; !slices.Equal(*log, want) {
		t.Errorf("log %v, want %v", *log, want)
	}
}
