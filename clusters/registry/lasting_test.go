package registry

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// nodes is a made-up provider whose named clusters live on by themselves, as kind's do.
type nodes struct{ alive []string }

func (n *nodes) Names() ([]string, error) { return slices.Clone(n.alive), nil }
func (n *nodes) Remove(_ context.Context, name, dir string) error {
	n.alive = slices.DeleteFunc(n.alive, func(s string) bool { return s == name })
	return os.RemoveAll(dir)
}

type nodeCluster struct{ name string }

func (nodeCluster) Target(context.Context) (*framework.Target, error) {
	return &framework.Target{}, nil
}
func (nodeCluster) WaitConverged(context.Context) error { return nil }
func (nodeCluster) Members() []clusters.Member          { return nil }
func (nodeCluster) Delete() error                       { return nil }
func (c nodeCluster) Record() Record {
	return Record{Kubeconfig: "/k", Servers: []Server{{Name: "apiserver-1", Version: "v1.36.3"}}}
}

var fakeNodes = &nodes{}

func init() {
	clusters.Register(clusters.Provider{Name: "fake-nodes", Capabilities: []clusters.Capability{clusters.Named}, Lasting: fakeNodes,
		New: func(_ context.Context, s clusters.Spec) (clusters.Cluster, error) {
			if s.Dir == "" {
				return nil, errors.New("a named cluster must get a directory")
			}
			fakeNodes.alive = append(fakeNodes.alive, s.Name)
			return nodeCluster{s.Name}, nil
		}})
	clusters.Register(clusters.Provider{Name: "fake-unnamed",
		New: func(context.Context, clusters.Spec) (clusters.Cluster, error) { return nodeCluster{}, nil }})
}

// TestLastingClusters: a provider whose clusters no process holds gets them made, listed
// and deleted here, also when the record is gone and only the provider still has them.
func TestLastingClusters(t *testing.T) {
	stateDir(t)
	ctx := context.Background()
	p := Plan{Provider: "fake-nodes", Spec: clusters.Spec{Servers: clusters.SpecsFor([]string{"v1.36.3"})}}
	rec, err := Create(ctx, "n1", p, nil, os.Stderr)
	if err != nil || rec.Provider != "fake-nodes" || rec.Name != "n1" || rec.Supervisor != 0 {
		t.Fatalf("Create: %+v, %v", rec, err)
	}
	if _, err := Create(ctx, "n1", p, nil, os.Stderr); err == nil {
		t.Error("a second cluster of the same name was made")
	}
	var ns clusters.ErrNotSupported
	if _, err := Create(ctx, "u1", Plan{Provider: "fake-unnamed"}, nil, os.Stderr); !errors.As(err, &ns) || ns.Capability != clusters.Named {
		t.Errorf("a provider without named clusters: %v, want ErrNotSupported{Named}", err)
	}
	fakeNodes.alive = append(fakeNodes.alive, "orphan")
	entries, err := List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Name] = e.Provider + " " + e.Status
	}
	if got["n1"] != "fake-nodes running" || got["orphan"] != "fake-nodes nodes without a record (delete it)" || len(got) != 2 {
		t.Errorf("List = %v", got)
	}
	for _, n := range []string{"n1", "orphan"} {
		if err := Delete(ctx, n, time.Second); err != nil {
			t.Errorf("Delete %s: %v", n, err)
		}
	}
	if len(fakeNodes.alive) != 0 {
		t.Errorf("left: %v", fakeNodes.alive)
	}
	if _, err := os.Stat(ClusterDir("n1")); !os.IsNotExist(err) {
		t.Errorf("the cluster's directory is still there: %v", err)
	}
	if err := Delete(ctx, "nosuch", time.Second); !errors.Is(err, ErrNoCluster) {
		t.Errorf("Delete of nothing: %v, want ErrNoCluster", err)
	}
}
