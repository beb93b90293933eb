package dataplane

import (
	"context"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestCanaryRefusedLeavesTheirEndpointSlice: a canary whose EndpointSlice cannot be made
// because one of that name is already there (someone else's, or a killed run's: the
// canary's name is always the same) is removed, and that EndpointSlice is left: only what
// createCanary made goes.
func TestCanaryRefusedLeavesTheirEndpointSlice(t *testing.T) {
	ctx := context.Background()
	theirs := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: canaryName, Namespace: "default"}, AddressType: discoveryv1.AddressTypeIPv4}
	cs := fake.NewClientset(theirs)
	if _, _, err := createCanary(ctx, cs, "node"); err == nil {
		t.Fatal("createCanary with the EndpointSlice's name taken: no error, want the create refused")
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, canaryName, metav1.GetOptions{}); err != nil {
		t.Errorf("the EndpointSlice that was there before, not createCanary's, was deleted: %v", err)
	}
	if _, err := cs.CoreV1().Services("default").Get(ctx, canaryName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service createCanary made is left after its EndpointSlice was refused: %v", err)
	}
}

// TestCanaryListsBothBackendsOnTheNode: the canary is what the dataplane must program
// before Start returns, a Service of both backends on the dataplane's own node.
func TestCanaryListsBothBackendsOnTheNode(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	_, del, err := createCanary(ctx, cs, "skewcheck-node")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, canaryName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Endpoints) != 2 || *s.Endpoints[0].NodeName != "skewcheck-node" || *s.Endpoints[1].NodeName != "skewcheck-node" ||
		s.Endpoints[0].Addresses[0] != backend1IP || s.Endpoints[1].Addresses[0] != backend2IP || *s.Ports[0].Port != backendPort {
		t.Errorf("the canary's EndpointSlice: %+v, want both backends on port %d of skewcheck-node", s, backendPort)
	}
	del(ctx)
	if _, err := cs.CoreV1().Services("default").Get(ctx, canaryName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the canary's Service is left after its delete: %v", err)
	}
	if _, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, canaryName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the canary's EndpointSlice is left after its delete: %v", err)
	}
}
