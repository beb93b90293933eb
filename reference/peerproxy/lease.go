package peerproxy

import (
	"context"
	"errors"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The reference registers itself rather than reading the upstream identity leases: it must
// work in front of apiservers whose version or configuration lacks the proxy, where those
// leases carry no peer address. A lease per proxy names the apiserver it fronts.
//
// A lease says "this server is a member": while it lives, peers answer 503 (never 404) for
// what the server served when it cannot be reached. So it must outlive every outage after
// which the server comes back:
//   - while the proxy runs, it renews its lease through its own apiserver or, when that
//     one is down or frozen, through any peer's apiserver (they share the storage);
//   - a crashed proxy's lease lives DefaultLeaseDuration, an hour, as upstream's identity
//     leases do (upstream-facts: duration 3600 s);
//   - a graceful stop deletes it at once: the server has left, and 404 is the truth.
//
// The lease's format is public (docs/peerproxy-peer-leases.md): LeaseName(ID) in
// LeaseNamespace, label LeaseLabel=true, annotation LeaseURLAnnotation, holder the ID,
// so that whoever runs the proxies can read, end or forge a registration.
const (
	LeaseNamespace     = "kube-system"
	LeaseLabel         = "skewcheck.io/peerproxy"
	LeaseURLAnnotation = "skewcheck.io/apiserver-url"
	// DefaultLeaseDuration is how long a lease outlives its proxy's last renewal.
	DefaultLeaseDuration = time.Hour
	leaseRenewPeriod     = 5 * time.Second
	// renewAttempt bounds one renewal through one apiserver, so a frozen one costs little
	// before the next is tried.
	renewAttempt = 3 * time.Second
)

// LeaseName is the name of the lease of the proxy whose Config.ID is id.
func LeaseName(id string) string { return "skewcheck-peerproxy-" + id }

func (r *registry) leaseName() string { return LeaseName(r.id) }

// renewLoop keeps the lease alive until ctx ends. It has its own loop and its own client:
// slow peer syncs or a flood of token reviews must never delay it.
func (r *registry) renewLoop(ctx context.Context) {
	t := time.NewTicker(leaseRenewPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.renew(ctx)
		}
	}
}

// registerBound is how long a starting proxy keeps trying to write its first lease. A
// proxy started beside an apiserver that has just restarted (a sidecar after its node
// came back) meets an apiserver that is ready but slow for some seconds: one attempt of
// renewAttempt is not enough, and a proxy that exits then leaves its server unfronted.
const registerBound = 30 * time.Second

// register writes the first lease, again every second until it succeeds or registerBound
// passes; the error is the last attempt's.
func (r *registry) register(ctx context.Context) error {
	deadline := time.Now().Add(registerBound)
	for {
		err := r.renew(ctx)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

// renew writes the lease through the fronted apiserver and, if that fails, through each
// live peer's apiserver in turn: a proxy whose apiserver is frozen is still a member.
func (r *registry) renew(ctx context.Context) error {
	var errs []error
	for _, via := range r.renewVia() {
		actx, cancel := context.WithTimeout(ctx, renewAttempt)
		err := r.renewThrough(actx, via.client)
		cancel()
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("through %s: %w", via.url, err))
	}
	return errors.Join(errs...)
}

type leaseWriter struct {
	url    string
	client kubernetes.Interface
}

// renewVia lists where the lease can be written: the fronted apiserver first, then the
// apiservers of the live peers (clients made once per URL), each verified as peers are
// (peerurl.go): the lease is written with the proxy's control identity.
func (r *registry) renewVia() []leaseWriter {
	via := []leaseWriter{{r.localURL, r.leaseClient}}
	_, peers := r.views()
	r.mu.Lock()
	defer r.mu.Unlock()
	clients := map[string]kubernetes.Interface{}
	for _, p := range peers {
		c, ok := r.peerLeaseClients[p.url]
		if !ok {
			cfg, err := r.peerConfig(p.url)
			if err != nil {
				continue
			}
			if c, err = kubernetes.NewForConfig(cfg); err != nil {
				continue
			}
		}
		clients[p.url] = c
		via = append(via, leaseWriter{p.url, c})
	}
	// Only the current peers' clients are kept: peers that came and went leave nothing.
	r.peerLeaseClients = clients
	return via
}

// renewThrough creates or renews the lease with one client.
func (r *registry) renewThrough(ctx context.Context, c kubernetes.Interface) error {
	leases := c.CoordinationV1().Leases(LeaseNamespace)
	now := metav1.NewMicroTime(time.Now())
	secs := int32(r.duration() / time.Second)
	l, err := leases.Get(ctx, r.leaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: r.leaseName(), Labels: map[string]string{LeaseLabel: "true"},
				Annotations: map[string]string{LeaseURLAnnotation: r.advertised()}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &r.id, LeaseDurationSeconds: &secs, RenewTime: &now},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = &now, &secs
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

func (r *registry) duration() time.Duration {
	if r.leaseDuration > 0 {
		return r.leaseDuration
	}
	return DefaultLeaseDuration
}

// advertised is the URL peers are told to dial for the fronted apiserver.
func (r *registry) advertised() string {
	if r.advertiseURL != "" {
		return r.advertiseURL
	}
	return r.localURL
}

// deregister deletes the lease: a graceful stop tells peers at once that this server left.
func (r *registry) deregister(ctx context.Context) {
	for _, via := range r.renewVia() {
		actx, cancel := context.WithTimeout(ctx, renewAttempt)
		err := via.client.CoordinationV1().Leases(LeaseNamespace).Delete(actx, r.leaseName(), metav1.DeleteOptions{})
		cancel()
		if err == nil || apierrors.IsNotFound(err) {
			return
		}
	}
}

// leaseLive says whether l says it was renewed within its duration of now; now is a
// parameter, not the clock, so what a lease says is judged at the time it is read.
func leaseLive(l coordinationv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return false
	}
	return now.Sub(l.Spec.RenewTime.Time) < time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second
}
