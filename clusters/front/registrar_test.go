package front

import (
	"context"
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/skewcheck/skewcheck/framework"
)

// The lease registrar reads a live lease as a registration, an expired or deleted one as
// none, and forges a live lease the proxies would read as a peer's.
func TestLeaseRegistrar(t *testing.T) {
	ctx := context.Background()
	lease := func(name string, renewed time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", Labels: map[string]string{"skewcheck.io/peerproxy": "true"}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(name + "-holder"), LeaseDurationSeconds: ptr.To[int32](60), RenewTime: &metav1.MicroTime{Time: renewed}}}
	}
	cs := fake.NewSimpleClientset(lease("live", time.Now()), lease("old", time.Now().Add(-time.Hour)))
	r := &LeaseRegistrar{Namespace: "kube-system", Labels: map[string]string{"skewcheck.io/peerproxy": "true"}, URLAnnotation: "skewcheck.io/apiserver-url",
		Names: map[string]string{"a": "live", "b": "old", "c": "gone"}, Client: func() (kubernetes.Interface, error) { return cs, nil }}
	if got, err := r.Find(ctx, &framework.Endpoint{Name: "a"}); err != nil || got.Holder != "live-holder" {
		t.Errorf("live lease: %+v, %v", got, err)
	}
	for _, e := range []string{"b", "c"} {
		if _, err := r.Find(ctx, &framework.Endpoint{Name: e}); !errors.Is(err, framework.ErrNotRegistered) {
			t.Errorf("endpoint %s (expired or missing lease): %v, want not registered", e, err)
		}
	}
	if _, err := r.Find(ctx, &framework.Endpoint{Name: "z"}); err == nil || errors.Is(err, framework.ErrNotRegistered) {
		t.Errorf("an endpoint the registrar does not know must be an error of the declaration, not an absence: %v", err)
	}
	forged, err := r.Forge(ctx, "127.77.250.250:6443")
	if err != nil {
		t.Fatal(err)
	}
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, forged.Name, metav1.GetOptions{})
	if err != nil || l.Annotations["skewcheck.io/apiserver-url"] != "https://127.77.250.250:6443" || l.Labels["skewcheck.io/peerproxy"] != "true" || !live(l) {
		t.Errorf("forged lease %+v, %v", l, err)
	}
	if err := r.Expire(ctx, forged.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(ctx, forged.Name); !errors.Is(err, framework.ErrNotRegistered) {
		t.Errorf("after Expire: %v", err)
	}
}
