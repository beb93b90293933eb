package races

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestLeaseWatchStopsAtNewHolder: the watch tells when the lease was last seen with the
// holder it began with, and no later once a restarted server has replaced it.
func TestLeaseWatchStopsAtNewHolder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "apiserver-peer", Namespace: "kube-system"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("apiserver-peer_old")}}
	cs := fake.NewSimpleClientset(lease)
	tl := &Timeline{t0: time.Now()}
	w, err := watchLease(ctx, identityLeases{cs: cs}, "apiserver-peer", tl, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if w.Stood() < 0.05 {
		t.Fatalf("the lease stood all along, but was last seen at %.3fs", w.Stood())
	}
	replaced := tl.Since()
	lease.Spec.HolderIdentity = ptr.To("apiserver-peer_new")
	if _, err := cs.CoordinationV1().Leases("kube-system").Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if stood := w.Stood(); stood > replaced {
		t.Errorf("the lease was replaced at %.3fs but seen with its first holder at %.3fs", replaced, stood)
	}
}
