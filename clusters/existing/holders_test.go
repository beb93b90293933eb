package existing

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/skewcheck/skewcheck/framework"
)

// TestHoldersByEndpoint: each found server's lease holder under its endpoint's name; a
// server whose lease went (a graceful stop) or was never matched is left out.
func TestHoldersByEndpoint(t *testing.T) {
	lease := func(name, holder string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	}
	c := &cluster{
		listing: fake.NewSimpleClientset(lease("apiserver-a", "apiserver-a_1111"), lease("apiserver-x", "apiserver-x_2222")),
		found:   &Found{Servers: []Server{{Address: "10.0.0.1:6443", Lease: "apiserver-a"}, {Address: "10.0.0.2:6443", Lease: "apiserver-b"}, {Address: "10.0.0.3:6443"}}},
		target:  &framework.Target{Endpoints: []*framework.Endpoint{{Name: "cp-1"}, {Name: "cp-2"}, {Name: "cp-3"}}},
	}
	got, err := c.Holders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got["cp-1"] != "apiserver-a_1111" {
		t.Errorf("holders %v, want only cp-1's apiserver-a_1111", got)
	}
}
