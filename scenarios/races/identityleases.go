package races

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// identityLeases is how kube-apiservers register with one another (framework.Registrar):
// an identity lease in kube-system per server, label
// apiserver.kubernetes.io/identity=kube-apiserver, renewed every 10 s, which peers watch
// to rebuild their peer caches. It is the registrar of every upstream target, so the races
// need no declaration there.
//
// The address a peer dials is NOT in the identity lease: kube-apiserver writes it into the
// annotation kubernetes.io/peer-advertise-address (k8s.io/kubernetes
// pkg/controlplane/apiserver/server.go, labelAPIServerHeartbeatFunc) but the proxy reads
// it from the endpoint lease the server keeps in etcd, outside the API
// (k8s.io/apiserver pkg/util/peerproxy hostportInfo -> PeerEndpointLeaseReconciler.GetEndpoint).
// So the annotation tells the races which lease is whose (Find), and a forged identity
// lease has no address at all, whatever its annotation says (Forge).
type identityLeases struct {
	cs kubernetes.Interface
}

// identityLeasesVia reads and writes identity leases through e, as its admin.
func identityLeasesVia(e *framework.Endpoint) (identityLeases, error) {
	cs, err := kubernetes.NewForConfig(e.Admin)
	if err != nil {
		return identityLeases{}, err
	}
	return identityLeases{cs: cs}, nil
}

const identityLabel = "apiserver.kubernetes.io/identity=kube-apiserver"

func (identityLeases) Mechanism() string {
	return "kube-apiserver identity leases (" + identityLabel + ")"
}

// Find finds the identity lease of the server behind e by the address it advertises to
// peers (its own, or the peer path in front of it when the cluster has one), or by its
// hostname when the target knows it.
func (r identityLeases) Find(ctx context.Context, e *framework.Endpoint) (framework.Registration, error) {
	u, err := url.Parse(e.URL)
	if err != nil {
		return framework.Registration{}, err
	}
	addrs := []string{u.Host}
	if p := faults.PeerPathOf(e); p != nil {
		addrs = append(addrs, p.Address)
	}
	leases, err := r.cs.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: identityLabel})
	if err != nil {
		return framework.Registration{}, err
	}
	for _, l := range leases.Items {
		if slices.Contains(addrs, l.Annotations["kubernetes.io/peer-advertise-address"]) ||
			e.Hostname != "" && l.Labels["kubernetes.io/hostname"] == e.Hostname {
			return registrationOf(&l), nil
		}
	}
	if e.Hostname != "" {
		return framework.Registration{}, fmt.Errorf("%w advertises %s or names host %s", errNoLease, strings.Join(addrs, " or "), e.Hostname)
	}
	return framework.Registration{}, fmt.Errorf("%w advertises %s", errNoLease, strings.Join(addrs, " or "))
}

// errNoLease is Find finding no lease of the server.
var errNoLease = fmt.Errorf("%w: no identity lease", framework.ErrNotRegistered)

// Read gets lease kube-system/name. Expiry is not looked at: upstream's peer cache does
// not either (an endpoint lease's TTL does that job).
func (r identityLeases) Read(ctx context.Context, name string) (framework.Registration, error) {
	l, err := r.cs.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return framework.Registration{}, fmt.Errorf("%w: identity lease kube-system/%s: %w", framework.ErrNotRegistered, name, err)
	}
	if err != nil {
		return framework.Registration{}, err
	}
	return registrationOf(l), nil
}

// Expire deletes the lease: its server re-creates it at its next renewal (every 10 s).
func (r identityLeases) Expire(ctx context.Context, name string) error {
	return r.cs.CoordinationV1().Leases("kube-system").Delete(ctx, name, metav1.DeleteOptions{})
}

// forgedIdentity names the identity lease Forge writes.
const forgedIdentity = "apiserver-skewcheckdeadaddress"

// Forge creates an identity lease of no server, its annotation naming address. Upstream
// dials the address of the endpoint lease in etcd, which no forged identity lease has:
// from 1.35 the entry fails to sync its peer cache while it stands ("missing port in
// address"), which is the disturbance RACE-005 is about.
func (r identityLeases) Forge(ctx context.Context, address string) (framework.Registration, error) {
	holder, secs := forgedIdentity+"_0", int32(3600)
	now := metav1.NewMicroTime(time.Now())
	l, err := r.cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: forgedIdentity, Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": "skewcheck-dead"},
			Annotations: map[string]string{"kubernetes.io/peer-advertise-address": address}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &now, AcquireTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		return framework.Registration{}, err
	}
	return registrationOf(l), nil
}

func registrationOf(l *coordinationv1.Lease) framework.Registration {
	r := framework.Registration{Name: l.Name}
	if l.Spec.HolderIdentity != nil {
		r.Holder = *l.Spec.HolderIdentity
	}
	return r
}
