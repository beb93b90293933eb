package kind

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/clusters/images/nodeimage"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/internal/integration"
)

func TestMain(m *testing.M) {
	// kind's docker commands come back to this test binary on hosts that need the shim.
	RunDockerShimIfCalled()
	os.Exit(m.Run())
}

// requireKindHost fails, saying why, where kind nodes cannot be built or run, unless the
// machine says it lacks them knowingly: SKEWCHECK_SKIP_KIND=1, where building two node
// images (nine Kubernetes binaries and a Debian root filesystem, about 25 minutes on 2
// cores, cold) does not fit a CI job's time limit.
func requireKindHost(t *testing.T) {
	t.Helper()
	integration.Require(t)
	integration.RequireKind(t, reachEngine)
}

// reachEngine connects to the Docker engine kind's nodes run on, and lets it go.
func reachEngine() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	eng, err := connect(ctx)
	if err != nil {
		return err
	}
	eng.close()
	return nil
}

// TestKindSkewedCluster makes a v1.35.4 + v1.36.3 kind cluster, checks every context, the
// skew and the proxy, then deletes it and checks nothing is left.
func TestKindSkewedCluster(t *testing.T) {
	requireKindHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	name := "skewtest"
	// A run killed before its cleanup leaves this test's cluster behind: remove it first.
	if names, err := Names(); err == nil && slices.Contains(names, name) {
		t.Logf("removing kind cluster %s left by an earlier run", KindName(name))
		if err := Delete(ctx, name, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	// Through the e2e-framework provider, as its users would, so both paths are covered
	// by one cluster. The newer node comes from a node image that is not skewcheck's, as
	// with --node-image kindest/node:<version>: it has no skewcheck labels, so the provider
	// asks the image itself what it carries.
	oldVersion, newVersion := integration.Versions()
	foreign := foreignNodeImage(ctx, t, newVersion)
	eng, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.close()
	_, err = nodeImages(ctx, eng, Config{Versions: []string{oldVersion}, NodeImages: []string{foreign}}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "which no node runs") {
		t.Errorf("a node image of a version no node runs: %v", err)
	}
	p := NewProvider().WithName(name).WithVersion(oldVersion+","+newVersion).
		WithOpts(WithProgress(testWriter{t}), WithNodeImages(foreign)).(*Provider)
	if _, err := p.Create(ctx); err != nil {
		t.Fatal(err)
	}
	c := p.Cluster()
	volumes := nodeVolumes(t, eng, name, len(c.Servers))
	if got := nodeImageOf(ctx, t, eng, c.Servers[1].Node); got != foreign {
		t.Errorf("node %s runs image %s, want the given %s", c.Servers[1].Node, got, foreign)
	}
	deleted := false
	defer func() {
		if !deleted {
			p.Destroy(context.Background())
		}
	}()
	if err := p.WaitForControlPlane(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if p.GetKubectlContext() != name+"-apiserver-1" || p.KubernetesRestConfig() == nil {
		t.Errorf("context %q, rest config %v", p.GetKubectlContext(), p.KubernetesRestConfig())
	}
	logs := t.TempDir()
	if err := p.ExportLogs(ctx, logs); err != nil {
		t.Errorf("export logs: %v", err)
	}
	t.Logf("created in %v (images %v, kind %v), ready at %v, converged at %v", c.Timings.Converged, c.Timings.Images, c.Timings.Create, c.Timings.Ready, c.Timings.Converged)

	byServer := map[string]discovery.Set{}
	for _, s := range c.Servers {
		admin, err := c.RestConfig(s.Name, Admin)
		if err != nil {
			t.Fatal(err)
		}
		set, err := discovery.Served(ctx, admin)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		byServer[s.Name] = set
		user, err := c.RestConfig(s.Name, Unprivileged)
		if err != nil {
			t.Fatal(err)
		}
		if code := get(t, user, "/api/v1/namespaces/kube-system/pods"); code != http.StatusForbidden {
			t.Errorf("%s: the unprivileged user listing pods got %d, want 403", s.Name, code)
		}
	}
	skew := discovery.Compare(byServer)
	if len(skew) == 0 {
		t.Fatal("v1.35.4 and v1.36.3 serve the same GVRs: the nodes do not run their own versions")
	}
	// A GVR only the newer server serves, asked of the older: proxied (200), not 404.
	lb, err := c.RestConfig("lb", Admin)
	if err != nil {
		t.Fatal(err)
	}
	old, err := c.RestConfig(c.Servers[0].Name, Admin)
	if err != nil {
		t.Fatal(err)
	}
	proxied := 0
	for _, s := range skew {
		if strings.Join(s.Missing, ",") != c.Servers[0].Name || !s.GVR.Can("list") {
			continue
		}
		if code := get(t, old, s.GVR.Path()); code != http.StatusOK {
			t.Errorf("%s through %s (which does not serve it): %d, want 200 (proxied to %s)", s.GVR.Key(), c.Servers[0].Name, code, c.Servers[1].Name)
		}
		proxied++
	}
	if proxied == 0 {
		t.Errorf("no listable GVR is served by %s only: %+v", c.Servers[1].Name, skew)
	}
	if code := get(t, lb, "/readyz"); code != http.StatusOK {
		t.Errorf("load balancer /readyz: %d", code)
	}

	checkFoundFromOneKubeconfig(ctx, t, lb, c)
	checkNodeControl(ctx, t, c)

	if err := p.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	deleted = true
	assertGone(t, eng, name, len(c.Servers), volumes)
	if _, err := os.Stat(filepath.Dir(c.Kubeconfig)); !os.IsNotExist(err) {
		t.Errorf("Destroy left %s behind: %v", filepath.Dir(c.Kubeconfig), err)
	}
}

// checkNodeControl crashes, starts, stops, starts, freezes and thaws the newer node's
// kube-apiserver through the Target's Node, checking it answers only when it should.
func checkNodeControl(ctx context.Context, t *testing.T, c *Cluster) {
	tgt, err := c.Target(ctx)
	if err != nil {
		t.Fatal(err)
	}
	e := tgt.Endpoints[1]
	answers := func() bool {
		hc, err := rest.HTTPClientFor(e.Admin)
		if err != nil {
			t.Fatal(err)
		}
		hc.Timeout = 3 * time.Second
		code, err := status(ctx, hc, e.URL+"/readyz")
		return err == nil && code == http.StatusOK
	}
	restart := func(what string) {
		if err := e.Node.Start(ctx); err != nil {
			t.Fatalf("start after %s: %v", what, err)
		}
		if err := c.WaitConverged(ctx); err != nil {
			t.Fatalf("after %s and start: %v", what, err)
		}
	}
	if err := e.Node.Kill(); err != nil {
		t.Fatal(err)
	}
	if answers() {
		t.Error("the killed kube-apiserver still answers")
	}
	restart("kill")
	if err := e.Node.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	if answers() {
		t.Error("the stopped kube-apiserver still answers")
	}
	restart("stop")
	if err := e.Node.Freeze(); err != nil {
		t.Fatal(err)
	}
	if answers() {
		t.Error("the frozen kube-apiserver answers")
	}
	if err := e.Node.Thaw(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitConverged(ctx); err != nil {
		t.Fatalf("after thaw: %v", err)
	}
}

func get(t *testing.T, cfg *rest.Config, path string) int {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	code, err := status(context.Background(), hc, strings.TrimRight(cfg.Host, "/")+path)
	if err != nil {
		t.Fatalf("GET %s%s: %v", cfg.Host, path, err)
	}
	return code
}

// nodeVolumes are the anonymous volumes of the cluster's node containers (kind's /var).
func nodeVolumes(t *testing.T, eng *engine, name string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		r, err := eng.c.ContainerInspect(context.Background(), nodeContainer(name, i), client.ContainerInspectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Container.Mounts {
			if m.Name != "" {
				out = append(out, m.Name)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the nodes have no volumes: kind's /var volume is missing")
	}
	return out
}

func assertGone(t *testing.T, eng *engine, name string, n int, volumes []string) {
	t.Helper()
	ctx := context.Background()
	containers := []string{loadBalancerContainer(name)}
	for i := 0; i < n; i++ {
		containers = append(containers, nodeContainer(name, i))
	}
	for _, c := range containers {
		if _, err := eng.c.ContainerInspect(ctx, c, client.ContainerInspectOptions{}); !errdefs.IsNotFound(err) {
			t.Errorf("container %s is still there after delete (%v)", c, err)
		}
	}
	if _, err := eng.c.NetworkInspect(ctx, networkName(name), client.NetworkInspectOptions{}); !errdefs.IsNotFound(err) {
		t.Errorf("network %s is still there after delete (%v)", networkName(name), err)
	}
	for _, v := range volumes {
		if _, err := eng.c.VolumeInspect(ctx, v, client.VolumeInspectOptions{}); !errdefs.IsNotFound(err) {
			t.Errorf("volume %s is still there after delete (%v)", v, err)
		}
	}
}

// TestKindBadInput: an image that is not a skewcheck node image and a name in use are
// refused with the cause, before anything runs.
func TestKindBadInput(t *testing.T) {
	integration.RequireDocker(t, reachEngine)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.close()
	if _, err := nodeFromImage(ctx, eng, "skewcheck-kind/no-such-image:v0"); err == nil || !strings.Contains(err.Error(), "skewcheck images node") {
		t.Errorf("missing node image: %v", err)
	}
	// An image that is not a kind node image (here: empty, no shell) is refused by asking it.
	notNode := "skewcheck-test/not-a-node:v0"
	imp := exec.CommandContext(ctx, "docker", "import", "-", notNode)
	imp.Stdin = bytes.NewReader(emptyTar())
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("docker import: %v: %s", err, out)
	}
	defer exec.Command("docker", "image", "rm", notNode).Run()
	if _, err := nodeFromImage(ctx, eng, notNode); err == nil || !strings.Contains(err.Error(), "is not a kind node image") {
		t.Errorf("an image that is not a kind node image: %v", err)
	} else {
		t.Logf("not a node image: %v", err)
	}
	// A node image that is neither here nor pullable (no registry, or no such tag).
	if _, err := givenNodes(ctx, eng, []string{"skewcheck-test/no-such-node:v0"}, io.Discard); err == nil || !strings.Contains(err.Error(), "pulling it failed") {
		t.Errorf("an unpullable node image: %v", err)
	} else {
		t.Logf("unpullable: %v", err)
	}
	if _, err := Create(ctx, Config{Name: "x", Dir: filepath.Join(t.TempDir(), "x")}); err == nil || !strings.Contains(err.Error(), "no versions") {
		t.Errorf("no versions: %v", err)
	}
	if _, err := Create(ctx, Config{Name: "x", Versions: []string{"v1.99.0"}, Dir: t.TempDir()}); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unknown version: %v", err)
	} else {
		t.Logf("unknown version: %v", err)
	}
}

// foreignNodeImage makes, from skewcheck's node image of version, a kind node image without
// skewcheck's labels: what the provider sees of a kindest/node image (a /kind/version, a
// kubeadm, the images kubeadm lists preloaded), offline.
func foreignNodeImage(ctx context.Context, t *testing.T, version string) string {
	t.Helper()
	res, err := nodeimage.Build(ctx, nodeimage.Options{Version: version, Progress: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	ref := "skewcheck-test/foreign-node:" + version
	dockerfile := fmt.Sprintf("FROM %s\nLABEL %s=\"\" %s=\"\"\n", res.Ref, nodeimage.VersionLabel, nodeimage.ImagesLabel)
	build := exec.CommandContext(ctx, "docker", "build", "-q", "-t", ref, "-")
	build.Stdin = strings.NewReader(dockerfile)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("docker build of %s: %v: %s", ref, err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "image", "rm", ref).Run() })
	return ref
}

// nodeImageOf is the image a node's container was made from, as it was named.
func nodeImageOf(ctx context.Context, t *testing.T, eng *engine, container string) string {
	t.Helper()
	r, err := eng.c.ContainerInspect(ctx, container, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Container.Config.Image
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// emptyTar is a tar archive with nothing in it: an image of no files.
func emptyTar() []byte {
	var b bytes.Buffer
	tar.NewWriter(&b).Close()
	return b.Bytes()
}

// checkFoundFromOneKubeconfig: from the load balancer's context alone, clusters/existing
// finds both apiservers of the kubeadm cluster (the default/kubernetes EndpointSlice the
// lease endpoint reconciler writes), asks each at its own address as
// kubernetes.default.svc, and reads the same versions and skew the cluster was made with.
func checkFoundFromOneKubeconfig(ctx context.Context, t *testing.T, lb *rest.Config, c *Cluster) {
	found, err := existing.Discover(ctx, lb)
	if err != nil {
		t.Fatalf("finding the apiservers from the load balancer's context: %v", err)
	}
	if len(found.Servers) != len(c.Servers) {
		t.Fatalf("found %+v, want %d apiservers", found.Servers, len(c.Servers))
	}
	tgt, err := found.Target(ctx, lb, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for i, e := range tgt.Endpoints {
		got = append(got, e.Version)
		want = append(want, c.Servers[i].Version)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("versions read at the addresses found: %v, want the nodes' %v", got, want)
	}
	if skew := existing.Skew(tgt); !strings.HasPrefix(skew, "skew across 2 apiservers") {
		t.Errorf("skew of the found apiservers: %s", skew)
	}
	t.Logf("found from one kubeconfig: %+v (leases not matched: %v); %s", found.Servers, found.UnmatchedLeases, existing.Skew(tgt))
}
