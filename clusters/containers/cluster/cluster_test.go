package cluster

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestContainersNameClash: a network or a container already holding the name the cluster
// would give its own fails the cluster with an error that names it and says what to do,
// and nothing of the cluster is left behind (its network, etcd's container).
func TestContainersNameClash(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	var rt *containers.Runtime
	integration.RequireDocker(t, func() (err error) { rt, err = containers.Connect(ctx); return err })
	defer rt.Close()
	oldV, _ := integration.Versions()
	static := staticSkewcheck(t)
	before := owned(t, rt)

	n, err := rt.CreateNetwork(ctx, "clash-net")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Remove()
	c1, err := New(ctx, local.Config{Name: "clash-net", Servers: clusters.SpecsFor([]string{oldV})}, static)
	if c1 != nil {
		c1.Delete()
	}
	if err == nil || !strings.Contains(err.Error(), "the name is taken") || !strings.Contains(err.Error(), "docker network rm "+n.Name) {
		t.Errorf("a network of the cluster's name: %v; want an error naming it and how to remove it", err)
	}
	expectOnly(t, rt, append(before, n.Name))

	holder, err := images.Holder(ctx, rt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Start(ctx, containers.Spec{Name: "clash-ctr-etcd", Image: holder, NetworkMode: "none", Log: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(0)
	c2, err := New(ctx, local.Config{Name: "clash-ctr", Servers: clusters.SpecsFor([]string{oldV})}, static)
	if c2 != nil {
		c2.Delete()
	}
	if err == nil || !strings.Contains(err.Error(), "the name is taken") || !strings.Contains(err.Error(), "docker rm -f "+c.Name) {
		t.Errorf("a container of etcd's name: %v; want an error naming it and how to remove it", err)
	}
	if _, err := rt.Provider().Client().ContainerInspect(ctx, c.ID(), client.ContainerInspectOptions{}); err != nil {
		t.Errorf("the container that held the name, which the cluster did not make, is gone: %v", err)
	}
	expectOnly(t, rt, append(before, n.Name, c.Name))
}

// owned lists the names of the containers and networks this test process made: those of
// other processes (the CLI's runs of cmd/skewcheck's tests, side by side with this
// package) come and go meanwhile, and are theirs to clean up.
func owned(t *testing.T, rt *containers.Runtime) []string {
	t.Helper()
	f := make(client.Filters).Add("label", containers.OwnerLabel+"="+strconv.Itoa(os.Getpid()))
	cs, err := rt.Provider().Client().ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := rt.Provider().Client().NetworkList(context.Background(), client.NetworkListOptions{Filters: f})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cs.Items {
		names = append(names, strings.TrimPrefix(c.Names[0], "/"))
	}
	for _, n := range ns.Items {
		names = append(names, n.Name)
	}
	return names
}

func expectOnly(t *testing.T, rt *containers.Runtime, want []string) {
	t.Helper()
	for _, name := range owned(t, rt) {
		if !slices.Contains(want, name) {
			t.Errorf("%s left behind", name)
		}
	}
}

// staticSkewcheck builds the CLI with CGO_ENABLED=0, for the etcd image.
func staticSkewcheck(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "skewcheck-static")
	cmd := exec.Command("go", "build", "-o", path, "github.com/skewcheck/skewcheck/cmd/skewcheck")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a static skewcheck: %v\n%s", err, out)
	}
	return path
}
