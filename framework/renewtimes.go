package framework

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// RenewTimes is a Registrar whose registrations say when their server last renewed them,
// by that server's own clock (a Lease's spec.renewTime). The lease time faults
// (scenarios/faults renewtime.go) rewrite it after each renewal, to act out a server
// whose clock is behind or ahead: what its peers and garbage collectors make of a renew
// time they cannot trust. Both registrars the harness knows implement it (kube-apiserver
// identity leases, front.LeaseRegistrar); a vendor's may.
type RenewTimes interface {
	Registrar
	// SkewRenewal rewrites registration name's renew time to what a server whose clock is
	// off by skew would have written at its last renewal (the renew time written plus
	// skew), unless it is still done, what the last call left: only a renewal since moves
	// it again. It changes nothing else, and writes nothing when a renewal comes in
	// between (the caller calls again). It returns the renew time it leaves; an error
	// wrapping ErrNotRegistered when the registration is gone.
	SkewRenewal(ctx context.Context, name string, skew time.Duration, done time.Time) (time.Time, error)
}

// SkewLeaseRenewal is SkewRenewal for registrations that are Leases: an update conditional
// on the resourceVersion read, so a renewal in between is never overwritten.
func SkewLeaseRenewal(ctx context.Context, leases coordinationv1.LeaseInterface, name string, skew time.Duration, done time.Time) (time.Time, error) {
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return time.Time{}, fmt.Errorf("%w: lease %s: %w", ErrNotRegistered, name, err)
	}
	if err != nil {
		return time.Time{}, err
	}
	if l.Spec.RenewTime == nil {
		return time.Time{}, fmt.Errorf("lease %s has no renewTime to skew: its holder writes none", name)
	}
	if l.Spec.RenewTime.Time.Equal(done) {
		return done, nil
	}
	l.Spec.RenewTime = &metav1.MicroTime{Time: l.Spec.RenewTime.Time.Add(skew)}
	u, err := leases.Update(ctx, l, metav1.UpdateOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("rewriting the renewTime of lease %s: %w", name, err)
	}
	return u.Spec.RenewTime.Time, nil
}
