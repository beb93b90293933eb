package framework

import (
	"context"
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A renewal is moved once by the skew, the lease otherwise untouched; the time it left is
// not moved again; a missing lease is ErrNotRegistered.
func TestSkewLeaseRenewal(t *testing.T) {
	ctx := context.Background()
	renewed := metav1.NewMicroTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	holder, secs := "apiserver-x_1", int32(3600)
	cs := fake.NewSimpleClientset(&coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "apiserver-x", Namespace: "kube-system", Labels: map[string]string{"a": "b"}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &renewed},
	})
	leases := cs.CoordinationV1().Leases("kube-system")
	done, err := SkewLeaseRenewal(ctx, leases, "apiserver-x", -30*time.Second, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := renewed.Add(-30 * time.Second); !done.Equal(want) {
		t.Fatalf("left %v, want %v", done, want)
	}
	again, err := SkewLeaseRenewal(ctx, leases, "apiserver-x", -30*time.Second, done)
	if err != nil || !again.Equal(done) {
		t.Fatalf("a second call with nothing renewed moved it: %v, %v", again, err)
	}
	l, _ := leases.Get(ctx, "apiserver-x", metav1.GetOptions{})
	if !l.Spec.RenewTime.Time.Equal(done) || *l.Spec.HolderIdentity != holder || *l.Spec.LeaseDurationSeconds != secs || l.Labels["a"] != "b" {
		t.Fatalf("lease after the skew: %+v", l)
	}
	if _, err := SkewLeaseRenewal(ctx, leases, "nope", time.Hour, time.Time{}); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("missing lease: %v, want ErrNotRegistered", err)
	}
}
