package peerproxy

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func lease(name, url string, renewed time.Time, seconds int32) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: LeaseNamespace,
		Labels: map[string]string{LeaseLabel: "true"}, Annotations: map[string]string{LeaseURLAnnotation: url}}}
	if !renewed.IsZero() {
		t := metav1.NewMicroTime(renewed)
		l.Spec.RenewTime = &t
	}
	if seconds != 0 {
		l.Spec.LeaseDurationSeconds = &seconds
	}
	return l
}

func TestLeaseLive(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name string
		l    *coordinationv1.Lease
		want bool
	}{
		{"just renewed", lease("a", "", now, 15), true},
		{"renewed 10s ago", lease("a", "", now.Add(-10*time.Second), 15), true},
		{"expired", lease("a", "", now.Add(-16*time.Second), 15), false},
		{"no renew time", lease("a", "", time.Time{}, 15), false},
		{"no duration", lease("a", "", now, 0), false},
	}
	for _, tt := range tests {
		if got := leaseLive(*tt.l, time.Now()); got != tt.want {
			t.Errorf("%s: leaseLive = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRenewAndDeregister(t *testing.T) {
	cs := fake.NewClientset()
	r := &registry{id: "c1-s1", localURL: "https://127.77.1.1:6443", client: cs, leaseClient: cs}
	ctx := context.Background()
	leases := cs.CoordinationV1().Leases(LeaseNamespace)

	if err := r.renew(ctx); err != nil {
		t.Fatalf("first renew: %v", err)
	}
	l, err := leases.Get(ctx, "skewcheck-peerproxy-c1-s1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the lease was not created: %v", err)
	}
	if l.Labels[LeaseLabel] != "true" || l.Annotations[LeaseURLAnnotation] != r.localURL {
		t.Errorf("lease labels %v annotations %v", l.Labels, l.Annotations)
	}
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != r.id {
		t.Errorf("holder %v, want %s", l.Spec.HolderIdentity, r.id)
	}
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds != 3600 {
		t.Errorf("duration %v, want 3600 (an hour, as upstream's identity leases)", l.Spec.LeaseDurationSeconds)
	}
	if !leaseLive(*l, time.Now()) {
		t.Error("a freshly created lease is not live")
	}

	// Renewing an existing (here: expired) lease moves its renew time.
	old := metav1.NewMicroTime(time.Now().Add(-time.Minute))
	l.Spec.RenewTime = &old
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.renew(ctx); err != nil {
		t.Fatalf("second renew: %v", err)
	}
	l, err = leases.Get(ctx, r.leaseName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !leaseLive(*l, time.Now()) {
		t.Errorf("renew did not refresh the lease: renewed %v", l.Spec.RenewTime)
	}

	r.deregister(ctx)
	if _, err := leases.Get(ctx, r.leaseName(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after deregister Get = %v, want NotFound", err)
	}
}

func keysOf(s discovery.Set) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestSync(t *testing.T) {
	cluster := pkiFor(t)
	core := list(group("", ver("v1", res("pods"))))
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), list(group("apps", ver("v1", res("deployments")))), core)
	peerB, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "b"), list(group("batch", ver("v1", res("jobs")))), core)
	peerA, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "a"), list(group("resource.k8s.io", ver("v1", res("deviceclasses")))), core)
	down := "https://" + strings.TrimPrefix(refusedURL(t), "http://")
	expired, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "expired"), list(group("expired.example.com", ver("v1", res("things")))), core)

	now := time.Now()
	r := proxyUnderTest(t, cluster, localSrv.URL,
		lease("skewcheck-peerproxy-self", localSrv.URL, now, 15), // its own: skipped
		lease("skewcheck-peerproxy-b", peerB.URL, now, 15),
		lease("skewcheck-peerproxy-a", peerA.URL, now, 15),
		lease("skewcheck-peerproxy-down", down, now, 15), // live but unreachable, never seen: skipped
		lease("skewcheck-peerproxy-expired", expired.URL, now.Add(-time.Minute), 15),
	)
	var syncs []bool
	r.onSync = func(ok bool) { syncs = append(syncs, ok) }
	if err := r.ready(); err == nil {
		t.Error("ready before the first sync")
	}
	r.sync(context.Background())
	if err := r.ready(); err != nil {
		t.Errorf("ready after sync: %v", err)
	}
	if !reflect.DeepEqual(syncs, []bool{false}) {
		t.Errorf("onSync calls %v, want [false] (a live peer could not be read)", syncs)
	}
	if got, want := keysOf(r.local.served), []string{"apps/v1/deployments", "core/v1/pods"}; !reflect.DeepEqual(got, want) {
		t.Errorf("local serves %v, want %v", got, want)
	}
	if !r.localServes("apps/v1/deployments") || r.localServes("batch/v1/jobs") {
		t.Error("localServes disagrees with the local view")
	}
	var ids []string
	local, peers := r.views()
	for _, p := range peers {
		ids = append(ids, p.id)
	}
	if want := []string{"skewcheck-peerproxy-a", "skewcheck-peerproxy-b"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("peers %v, want %v (sorted by id)", ids, want)
	}
	if local.url != localSrv.URL || local.apis == nil {
		t.Errorf("local view %+v", local)
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peerB.URL}) {
		t.Errorf("capablePeers(batch/v1/jobs) = %v, want [%s]", got, peerB.URL)
	}
	wantBoth := []string{peerA.URL, peerB.URL}
	sort.Strings(wantBoth)
	if got := r.capablePeers("core/v1/pods"); !reflect.DeepEqual(got, wantBoth) {
		t.Errorf("capablePeers(core/v1/pods) = %v, want %v (sorted)", got, wantBoth)
	}
	if got := r.capablePeers("expired.example.com/v1/things"); got != nil {
		t.Errorf("capablePeers of an expired peer's resource = %v, want none", got)
	}

	// A known peer that stops answering keeps its last view while its lease is live.
	peerB.Close()
	r.sync(context.Background())
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peerB.URL}) {
		t.Errorf("after the peer went down capablePeers(batch/v1/jobs) = %v, want its last view [%s]", got, peerB.URL)
	}

	// Once its lease goes, so does its view.
	if err := r.client.CoordinationV1().Leases(LeaseNamespace).Delete(context.Background(), "skewcheck-peerproxy-b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r.sync(context.Background())
	if got := r.capablePeers("batch/v1/jobs"); got != nil {
		t.Errorf("after the peer's lease went capablePeers(batch/v1/jobs) = %v, want none", got)
	}
}

// TestRenewThroughAPeerWhenTheLocalApiserverFails: a proxy whose own apiserver is frozen or
// down is still a member; it renews its lease through a live peer's apiserver, so its peers
// keep answering 503 for what it serves instead of dropping it (issue: 404 after ~16 s).
func TestRenewThroughAPeerWhenTheLocalApiserverFails(t *testing.T) {
	ctx := context.Background()
	shared := fake.NewClientset() // the peer's apiserver: the same storage
	frozen := fake.NewClientset()
	frozen.PrependReactor("*", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, context.DeadlineExceeded
	})
	peerURL := "https://127.77.1.12:6443"
	r := &registry{id: "c1-s1", localURL: "https://127.77.1.11:6443", leaseClient: frozen, leaseDuration: time.Minute,
		peers:            map[string]view{"skewcheck-peerproxy-c1-s2": {id: "skewcheck-peerproxy-c1-s2", url: peerURL}},
		peerLeaseClients: map[string]kubernetes.Interface{peerURL: shared}}
	if err := r.renew(ctx); err != nil {
		t.Fatalf("renew with a frozen local apiserver and a live peer: %v", err)
	}
	l, err := shared.CoordinationV1().Leases(LeaseNamespace).Get(ctx, r.leaseName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the lease was not written through the peer: %v", err)
	}
	if !leaseLive(*l, time.Now()) || *l.Spec.LeaseDurationSeconds != 60 {
		t.Errorf("lease through the peer: live %v, duration %v", leaseLive(*l, time.Now()), *l.Spec.LeaseDurationSeconds)
	}

	// With no peer to write through either, renew says where it tried.
	r.peers = nil
	err = r.renew(ctx)
	if err == nil || !strings.Contains(err.Error(), r.localURL) {
		t.Errorf("renew with nowhere to write = %v, want an error naming %s", err, r.localURL)
	}
}

// TestUnreadablePeerKeepsItsViewForItsWholeLease: a live lease keeps a peer's last known
// resources however many syncs fail, so a frozen server's GVRs are never dropped to 404.
func TestUnreadablePeerKeepsItsViewForItsWholeLease(t *testing.T) {
	cluster := pkiFor(t)
	core := list(group("", ver("v1", res("pods"))))
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), list(group("apps", ver("v1", res("deployments")))), core)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), list(group("batch", ver("v1", res("jobs")))), core)
	r := proxyUnderTest(t, cluster, localSrv.URL, lease("skewcheck-peerproxy-p", peer.URL, time.Now(), 3600))
	r.sync(context.Background())
	peer.Close()
	for i := 0; i < 20; i++ {
		r.sync(context.Background())
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("after 20 failed syncs capablePeers(batch/v1/jobs) = %v, want the last view [%s]", got, peer.URL)
	}
}

// The flaw forget-unreachable-peer (the mutant RACE-002 must catch) keeps an unreadable
// peer only for forgetAfter since its last read, its lease live all along.
func TestFlawForgetsAnUnreadablePeerWhileItsLeaseLives(t *testing.T) {
	cluster := pkiFor(t)
	core := list(group("", ver("v1", res("pods"))))
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), list(group("apps", ver("v1", res("deployments")))), core)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), list(group("batch", ver("v1", res("jobs")))), core)
	r := proxyUnderTest(t, cluster, localSrv.URL, lease("skewcheck-peerproxy-p", peer.URL, time.Now(), 3600))
	r.flaw = FlawForgetUnreachablePeer
	r.sync(context.Background())
	peer.Close()
	r.sync(context.Background())
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Fatalf("just after the peer went down capablePeers(batch/v1/jobs) = %v, want the last view [%s]", got, peer.URL)
	}
	r.mu.Lock()
	v := r.peers["skewcheck-peerproxy-p"]
	v.fetched = time.Now().Add(-forgetAfter - time.Second)
	r.peers["skewcheck-peerproxy-p"] = v
	r.mu.Unlock()
	r.sync(context.Background())
	if got := r.capablePeers("batch/v1/jobs"); got != nil {
		t.Errorf("unread for longer than %v, the flawed proxy should have forgotten the peer; capablePeers(batch/v1/jobs) = %v", forgetAfter, got)
	}
}
