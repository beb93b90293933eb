package front

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
)

// LeaseRegistrar is a framework.Registrar for proxies that register each server with a
// Lease of their own, renewed while the proxy runs and read by its peers: the reference
// peer proxy's registry (reference/peerproxy lease.go), or a vendor's of the same shape.
// A lease past its renewTime plus duration is no registration, as the reference reads a
// lease it sees for the first time (it then judges renewals by its own clock:
// reference/peerproxy renewals.go).
type LeaseRegistrar struct {
	Namespace string
	// Labels are on every registration's lease (and on a forged one).
	Labels map[string]string
	// URLAnnotation is the annotation that names the URL peers dial (https://host:port).
	URLAnnotation string
	// Names maps each endpoint's name to the lease of the server behind it.
	Names map[string]string
	// Client reaches the apiservers the leases are stored in, any one that runs.
	Client func() (kubernetes.Interface, error)
}

// forgedLease names the lease Forge writes.
const forgedLease = "skewcheck-forged-peer"

func (r *LeaseRegistrar) Mechanism() string {
	return fmt.Sprintf("leases in %s labelled %s", r.Namespace, labels.Set(r.Labels))
}

func (r *LeaseRegistrar) Find(ctx context.Context, e *framework.Endpoint) (framework.Registration, error) {
	name, ok := r.Names[e.Name]
	if !ok {
		return framework.Registration{}, fmt.Errorf("the registrar knows no lease of endpoint %s (it knows those of %v): add it to Names", e.Name, slices.Sorted(maps.Keys(r.Names)))
	}
	return r.Read(ctx, name)
}

func (r *LeaseRegistrar) Read(ctx context.Context, name string) (framework.Registration, error) {
	cs, err := r.Client()
	if err != nil {
		return framework.Registration{}, err
	}
	l, err := cs.CoordinationV1().Leases(r.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return framework.Registration{}, fmt.Errorf("%w: lease %s/%s: %w", framework.ErrNotRegistered, r.Namespace, name, err)
	}
	if err != nil {
		return framework.Registration{}, err
	}
	if !live(l) {
		return framework.Registration{}, fmt.Errorf("%w: lease %s/%s has expired", framework.ErrNotRegistered, r.Namespace, name)
	}
	reg := framework.Registration{Name: l.Name}
	if l.Spec.HolderIdentity != nil {
		reg.Holder = *l.Spec.HolderIdentity
	}
	return reg, nil
}

// Expire deletes the lease; the proxy writes it again at its next renewal.
func (r *LeaseRegistrar) Expire(ctx context.Context, name string) error {
	cs, err := r.Client()
	if err != nil {
		return err
	}
	err = cs.CoordinationV1().Leases(r.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Forge writes a live lease, for an hour, naming https://address.
func (r *LeaseRegistrar) Forge(ctx context.Context, address string) (framework.Registration, error) {
	cs, err := r.Client()
	if err != nil {
		return framework.Registration{}, err
	}
	holder, secs, now := forgedLease, int32(3600), metav1.NewMicroTime(time.Now())
	_, err = cs.CoordinationV1().Leases(r.Namespace).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: forgedLease, Labels: maps.Clone(r.Labels), Annotations: map[string]string{r.URLAnnotation: "https://" + address}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &now},
	}, metav1.CreateOptions{})
	if err != nil {
		return framework.Registration{}, fmt.Errorf("writing lease %s/%s: %w", r.Namespace, forgedLease, err)
	}
	return framework.Registration{Name: forgedLease, Holder: holder}, nil
}

func live(l *coordinationv1.Lease) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return false
	}
	return time.Since(l.Spec.RenewTime.Time) < time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second
}

// errNoServer is a cluster with no apiserver running to read the leases through.
var errNoServer = errors.New("no apiserver of the cluster is running to read the proxies' leases through: start one")

// referenceRegistrar is the registrar of the reference proxies in front of site's
// apiservers: their own leases (reference/peerproxy lease.go).
func referenceRegistrar(site *clusters.FrontSite, names map[string]string) *LeaseRegistrar {
	return &LeaseRegistrar{Namespace: peerproxy.LeaseNamespace, Labels: map[string]string{peerproxy.LeaseLabel: "true"},
		URLAnnotation: peerproxy.LeaseURLAnnotation, Names: names, Client: RunningServer(site)}
}

// RunningServer is a LeaseRegistrar's Client for the proxies in front of site's apiservers:
// whichever of them runs when asked, since the races crash and stop servers.
func RunningServer(site *clusters.FrontSite) func() (kubernetes.Interface, error) {
	var mu sync.Mutex // the races read leases from watchers of their own
	clients := map[string]kubernetes.Interface{}
	return func() (kubernetes.Interface, error) {
		mu.Lock()
		defer mu.Unlock()
		for i, s := range site.Servers {
			if !s.Running() {
				continue
			}
			if cs, ok := clients[s.Name]; ok {
				return cs, nil
			}
			cs, err := kubernetes.NewForConfig(site.Direct.Endpoints[i].Admin)
			if err != nil {
				return nil, err
			}
			clients[s.Name] = cs
			return cs, nil
		}
		return nil, errNoServer
	}
}
