package dataplanetest

import (
	"context"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/skewcheck/skewcheck/framework"
)

// TestBackedServiceRefusedLeavesTheirEndpointSlice: a Service whose EndpointSlice cannot be
// made because one of that name is already there (someone else's, or a killed run's that
// the dataplane's canary would reuse the name of) is removed, and that EndpointSlice is
// left: only what CreateService made goes.
func TestBackedServiceRefusedLeavesTheirEndpointSlice(t *testing.T) {
	ctx := context.Background()
	theirs := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "skewcheck-canary", Namespace: "default"}, AddressType: discoveryv1.AddressTypeIPv4}
	cs := fake.NewClientset(theirs)
	d := For(&framework.Dataplane{Backends: []framework.Backend{{Name: "backend-1", IP: "10.0.0.1", Port: 8080}}})
	d.csOnce.Do(func() { d.cs = cs })
	if _, _, err := d.CreateService(ctx, "skewcheck-canary"); err == nil {
		t.Fatal("CreateService with the EndpointSlice's name taken: no error, want the create refused")
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, "skewcheck-canary", metav1.GetOptions{}); err != nil {
		t.Errorf("the EndpointSlice that was there before, not CreateService's, was deleted: %v", err)
	}
	if _, err := cs.CoreV1().Services("default").Get(ctx, "skewcheck-canary", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service CreateService made is left after its EndpointSlice was refused: %v", err)
	}
}
