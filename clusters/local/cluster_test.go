package local

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// newTestCluster starts a cluster that is deleted when the test ends, pass or fail.
func newTestCluster(t *testing.T, specs ...clusters.ServerSpec) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := New(ctx, Config{Name: "test", Servers: specs, Progress: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Delete(); err != nil {
			t.Errorf("delete: %v", err)
		}
	})
	return c
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// onlyNewServes finds, from discovery, a GVR the new server serves and the old does not,
// that skewcheck can create an object of.
func onlyNewServes(t *testing.T, c *Cluster, old, new *Server) discovery.GVR {
	t.Helper()
	ctx := context.Background()
	oldSet, err := discovery.Served(ctx, c.RestConfig(old, Admin))
	if err != nil {
		t.Fatal(err)
	}
	newSet, err := discovery.Served(ctx, c.RestConfig(new, Admin))
	if err != nil {
		t.Fatal(err)
	}
	g, ok := fixtures.Pick(oldSet.Missing(newSet), "create", "get")
	if !ok {
		t.Fatalf("%s serves nothing creatable that %s does not: %v", new.Version, old.Version, oldSet.Missing(newSet).Sorted())
	}
	t.Logf("%s serves %s, %s does not", new.Version, g.Key(), old.Version)
	return g
}

// createThroughNewReadThroughOld creates an object on new and reads it back through old.
func createThroughNewReadThroughOld(t *testing.T, c *Cluster, g discovery.GVR, old, new *Server) (int, error) {
	t.Helper()
	ctx := context.Background()
	obj, _ := fixtures.Object(g, "skew-"+time.Now().Format("150405.000000")[7:], "default")
	gvr := schema.GroupVersionResource{Group: g.Group, Version: g.Version, Resource: g.Resource}
	newClient := dynamic.NewForConfigOrDie(c.RestConfig(new, Admin))
	created, err := newClient.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s through %s: %v", g.Key(), new.Name, err)
	}
	oldClient := dynamic.NewForConfigOrDie(c.RestConfig(old, Admin))
	got, err := oldClient.Resource(gvr).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		return statusCode(err), err
	}
	if got.GetUID() != created.GetUID() || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Fatalf("read through %s a different object: uid %s rv %s, created uid %s rv %s",
			old.Name, got.GetUID(), got.GetResourceVersion(), created.GetUID(), created.GetResourceVersion())
	}
	return 200, nil
}

func TestSkewedClusterProxiesToTheServerThatServes(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	c := newTestCluster(t, clusters.ServerSpec{Version: oldV}, clusters.ServerSpec{Version: newV})
	old, new := c.Servers[0], c.Servers[1]
	t.Logf("ready in %v, converged in %v", c.Timings.Ready, c.Timings.Converged)
	g := onlyNewServes(t, c, old, new)
	if code, err := createThroughNewReadThroughOld(t, c, g, old, new); err != nil {
		t.Fatalf("reading %s through %s (%s), which does not serve it: HTTP %d, %v; the mixed version proxy should have forwarded it to %s",
			g.Key(), old.Name, old.Version, code, err, new.Name)
	}
}

func TestSkewedClusterWithGateOffAnswers404(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	c := newTestCluster(t,
		clusters.ServerSpec{Version: oldV, ExtraFlags: []string{"--feature-gates=" + Gate + "=false"}},
		clusters.ServerSpec{Version: newV})
	old, new := c.Servers[0], c.Servers[1]
	if old.PeerProxy() {
		t.Fatalf("%s should run without the proxy when its flags turn the gate off", old.Name)
	}
	g := onlyNewServes(t, c, old, new)
	code, err := createThroughNewReadThroughOld(t, c, g, old, new)
	if code != 404 {
		t.Fatalf("with the gate off on %s, reading %s through it should be 404 (nothing proxies); got HTTP %d, %v", old.Name, g.Key(), code, err)
	}
}

// TestSkewedClusterWithoutPeerCAAnswers404: KEP-4020 says a server without --peer-ca-file
// fails the requests it would proxy with 503 (Design Details, Proxy transport between
// apiservers and authn); upstream builds no proxy at all then (pkg/controlplane/apiserver
// config.go:325 in 1.36.3, :323 in 1.35.4), so the server answers what it serves itself:
// 404 for what only its peer serves. Its gate is on, so it still writes its endpoint
// lease and its peer proxies to it (docs/spec-vs-code.md).
func TestSkewedClusterWithoutPeerCAAnswers404(t *testing.T) {
	integration.Require(t)
	oldV, newV := integration.Versions()
	c := newTestCluster(t,
		clusters.ServerSpec{Version: oldV, ExtraFlags: []string{"--peer-ca-file="}},
		clusters.ServerSpec{Version: newV, ExtraFlags: []string{"--runtime-config=batch/v1=false"}})
	old, new := c.Servers[0], c.Servers[1]
	if old.PeerProxy() {
		t.Fatalf("%s has an empty --peer-ca-file: it should count as a server that does not proxy", old.Name)
	}
	// Whether a server built its proxy is in its boot sequence: the post-start hook
	// mixed-version-proxy-handler exists only then (server.go:208 in 1.36.3, :216 in
	// 1.35.4). A 404 alone could also be a proxy that has not yet found its peer.
	for _, s := range []struct {
		server *Server
		want   bool
	}{{old, false}, {new, true}} {
		checks, err := kubernetes.NewForConfigOrDie(c.RestConfig(s.server, Admin)).Discovery().RESTClient().
			Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(context.Background())
		if err != nil {
			t.Fatalf("/readyz?verbose of %s: %v", s.server.Name, err)
		}
		if got := strings.Contains(string(checks), "poststarthook/mixed-version-proxy-handler"); got != s.want {
			t.Fatalf("%s's boot sequence has the mixed version proxy's hook: %v, want %v (%s):\n%s", s.server.Name, got, s.want, strings.Join(s.server.Spec.ExtraFlags, " "), checks)
		}
	}
	g := onlyNewServes(t, c, old, new)
	code, err := createThroughNewReadThroughOld(t, c, g, old, new)
	if code != 404 {
		t.Fatalf("%s has its gate on and no peer CA; reading %s through it should be 404 (upstream builds no proxy without --peer-ca-file; the KEP's 503 is not what it does); got HTTP %d, %v", old.Name, g.Key(), code, err)
	}
	jobs := schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	if _, err := dynamic.NewForConfigOrDie(c.RestConfig(new, Admin)).Resource(jobs).Namespace("default").List(context.Background(), metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatalf("listing batch/v1 jobs through %s, which does not serve them: HTTP %d, %v; %s (gate on, no peer CA) should still be a peer it proxies to", new.Name, statusCode(err), err, old.Name)
	}
}

// statusCode is the HTTP status of a client-go error (0 when it carries none).
func statusCode(err error) int {
	if s, ok := err.(apierrors.APIStatus); ok {
		return int(s.Status().Code)
	}
	return 0
}
