package local

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/fixtures"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestEveryServedFixtureIsCreated creates, on a real kube-apiserver of the newest test
// version, one object of every GVR it serves that has a fixture: the fixtures' bodies
// pass the real validation and admission, not only the API types. The GVRs it does not
// serve (those of newer releases) are logged: their bodies are checked against the API
// types only (framework/fixtures).
func TestEveryServedFixtureIsCreated(t *testing.T) {
	integration.Require(t)
	_, newV := integration.Versions()
	c := newTestCluster(t, clusters.ServerSpec{Version: newV})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := c.RestConfig(c.Servers[0], Admin)
	served, err := discovery.Served(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	client := dynamic.NewForConfigOrDie(cfg)
	created := 0
	for _, key := range fixtures.Keys() {
		g, ok := served[key]
		if !ok {
			t.Logf("%s does not serve %s: its fixture is not created here", newV, key)
			continue
		}
		obj, _ := fixtures.Object(g, "skewcheck-fixture", "default")
		gvr := schema.GroupVersionResource{Group: g.Group, Version: g.Version, Resource: g.Resource}
		if _, err := client.Resource(gvr).Namespace(obj.GetNamespace()).Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
			t.Errorf("creating the %s fixture on %s: %v", key, newV, err)
			continue
		}
		created++
	}
	if created == 0 {
		t.Fatalf("%s serves none of the fixtures' GVRs", newV)
	}
	t.Logf("created %d fixtures on %s", created, newV)
}
