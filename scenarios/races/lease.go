package races

import (
	"context"
	"errors"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework"
)

// leaseWatch reads one identity lease through the entry every interval and remembers the
// last time it was seen held by the holder it had when the watch began: until then the
// server of that lease was still registered, for the entry too (it reads the same store).
type leaseWatch struct {
	mu sync.Mutex
	// stood is when (seconds on the race's timeline) the last request was sent that found
	// the lease still held by its first holder; watchLease's first read sets it.
	stood float64
}

// watchLease starts reading lease kube-system/name through cs until ctx ends. The first
// holder is read before it returns.
func watchLease(ctx context.Context, cs kubernetes.Interface, name string, tl *Timeline, interval time.Duration) (*leaseWatch, error) {
	leases := cs.CoordinationV1().Leases("kube-system")
	sent := tl.Since()
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	w := &leaseWatch{stood: sent}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			sent := tl.Since()
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			l, err := leases.Get(rctx, name, metav1.GetOptions{})
			cancel()
			switch {
			case err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == holder:
				w.mu.Lock()
				w.stood = sent
				w.mu.Unlock()
			case err == nil || apierrors.IsNotFound(err):
				return // replaced or deleted: the first holder never comes back
			}
			// any other error says nothing about the lease: read it again
		}
	}()
	return w, nil
}

// Stood is when the last read was sent that found the lease with its first holder.
func (w *leaseWatch) Stood() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stood
}

// absenceWatch reads, every interval, whether the server behind an endpoint has an
// identity lease, until the first read that finds one.
type absenceWatch struct {
	mu sync.Mutex
	// absent is when (seconds on the race's timeline) the last read was sent that found no
	// lease of the server: until then, nothing registered it, for the entry either.
	absent float64
}

// watchAbsence starts reading the identity leases through cs for e's until ctx ends or one
// is found. Before the first read, absence is -1: nothing is known.
func watchAbsence(ctx context.Context, cs kubernetes.Interface, e *framework.Endpoint, tl *Timeline, interval time.Duration) *absenceWatch {
	w := &absenceWatch{absent: -1}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			sent := tl.Since()
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := identityLease(rctx, cs, e)
			cancel()
			switch {
			case ctx.Err() != nil:
				return
			case err == nil:
				return // registered: absence ends here
			case errors.Is(err, errNoLease):
				w.mu.Lock()
				w.absent = sent
				w.mu.Unlock()
			}
			// any other error says nothing about the lease: read again
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// AbsentUntil is when the last read was sent that found no identity lease of the server,
// -1 when no read did.
func (w *absenceWatch) AbsentUntil() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.absent
}
