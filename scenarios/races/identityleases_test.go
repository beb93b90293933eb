package races

import (
	"context"
	"errors"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/skewcheck/skewcheck/framework"
)

// Upstream's registrar finds a server's identity lease by the address it advertises or its
// hostname, tells a missing one as not registered, and forges the lease the races always
// forged: an identity lease of no server, for an hour.
func TestIdentityLeases(t *testing.T) {
	ctx := context.Background()
	lease := func(name, addr, host string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
			Labels:      map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": host},
			Annotations: map[string]string{"kubernetes.io/peer-advertise-address": addr}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name + "_1")}}
	}
	r := identityLeases{cs: fake.NewSimpleClientset(lease("apiserver-a", "127.77.0.11:6443", "a"), lease("apiserver-b", "10.0.0.2:6443", "node-b"))}
	for _, tc := range []struct {
		e    framework.Endpoint
		want string
	}{
		{framework.Endpoint{URL: "https://127.77.0.11:6443"}, "apiserver-a"},
		{framework.Endpoint{URL: "https://127.0.0.1:32001", Hostname: "node-b"}, "apiserver-b"},
	} {
		if got, err := r.Find(ctx, &tc.e); err != nil || got.Name != tc.want || got.Holder != tc.want+"_1" {
			t.Errorf("%s: %+v, %v; want %s", tc.e.URL, got, err, tc.want)
		}
	}
	if _, err := r.Find(ctx, &framework.Endpoint{URL: "https://127.77.0.13:6443"}); !errors.Is(err, framework.ErrNotRegistered) || !errors.Is(err, errNoLease) {
		t.Errorf("a server without a lease: %v", err)
	}
	forged, err := r.Forge(ctx, "127.77.250.250:6443")
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.cs.CoordinationV1().Leases("kube-system").Get(ctx, forged.Name, metav1.GetOptions{})
	if err != nil || l.Name != "apiserver-skewcheckdeadaddress" || *l.Spec.HolderIdentity != "apiserver-skewcheckdeadaddress_0" ||
		*l.Spec.LeaseDurationSeconds != 3600 || l.Labels["apiserver.kubernetes.io/identity"] != "kube-apiserver" ||
		l.Annotations["kubernetes.io/peer-advertise-address"] != "127.77.250.250:6443" {
		t.Errorf("forged %+v, %v", l, err)
	}
	if err := r.Expire(ctx, forged.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(ctx, forged.Name); !errors.Is(err, framework.ErrNotRegistered) {
		t.Errorf("read after Expire: %v", err)
	}
}
