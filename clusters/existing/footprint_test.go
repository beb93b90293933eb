package existing

import (
	"context"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/skewcheck/skewcheck/clusters"
)

// A run whose namespace is already there (another run's, started in the same second
// before run IDs had a random part) removes nothing: what it did not make is not its to
// delete. The fake cluster lists one apiserver and answers every create AlreadyExists; the
// provider's whole path runs, from finding the servers to the clean-up after Make failed.
func TestCollisionDeletesNothing(t *testing.T) {
	api := newFakeAPI(t, func(r fakeRequest) (int, any) {
		switch {
		case r.Method == http.MethodPost:
			return status(http.StatusConflict, "AlreadyExists", "it is another run's")
		case r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/namespaces/default/endpointslices"):
			return http.StatusOK, map[string]any{"kind": "EndpointSliceList", "apiVersion": "discovery.k8s.io/v1", "items": []any{map[string]any{
				"metadata": map[string]any{"name": "kubernetes", "namespace": "default"}, "addressType": "IPv4",
				"ports":     []any{map[string]any{"name": "https", "port": 6443}},
				"endpoints": []any{map[string]any{"addresses": []any{"192.0.2.11"}}}}}}
		case r.Method == http.MethodGet && strings.HasSuffix(r.Path, "/leases"):
			return status(http.StatusForbidden, "Forbidden", "leases are not yours to read")
		}
		return status(http.StatusNotFound, "NotFound", "the fake has no "+r.Path)
	})
	_, err := newCluster(context.Background(), clusters.Spec{Kubeconfig: api.kubeconfig(t)})
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("newCluster = %v, want the namespace's AlreadyExists", err)
	}
	if posts := api.sent(http.MethodPost); len(posts) == 0 || posts[0].Path != "/api/v1/namespaces" {
		t.Fatalf("the run never tried to make its namespace: %v", posts)
	}
	if d := api.sent(http.MethodDelete); len(d) > 0 {
		t.Errorf("a run that made nothing sent deletes (or delete-collections) to a cluster it does not own: %v", d)
	}
}
