package races

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// leaseWatch reads one registration (an identity lease upstream) every interval and
// remembers the last time it was seen held by the holder it had when the watch began:
// until then the server of that registration was still registered, for the entry too (it
// reads the same store).
type leaseWatch struct {
	mu sync.Mutex
	// stood is when (seconds on the race's timeline) the last request was sent that found
	// the lease still held by its first holder; watchLease's first read sets it.
	stood float64
}

// watchLease starts reading registration name through reg until ctx ends. The first
// holder is read before it returns.
func watchLease(ctx context.Context, reg framework.Registrar, name string, tl *Timeline, interval time.Duration) (*leaseWatch, error) {
	sent := tl.Since()
	first, err := reg.Read(ctx, name)
	if err != nil {
		return nil, err
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
			now, err := reg.Read(rctx, name)
			cancel()
			switch {
			case err == nil && now.Holder == first.Holder:
				w.mu.Lock()
				w.stood = sent
				w.mu.Unlock()
			case err == nil || errors.Is(err, framework.ErrNotRegistered):
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

// absenceWatch reads, every interval, whether the server behind an endpoint is registered
// (has an identity lease, upstream), until the first read that finds it is.
type absenceWatch struct {
	mu sync.Mutex
	// absent is when (seconds on the race's timeline) the last read was sent that found no
	// lease of the server: until then, nothing registered it, for the entry either.
	absent float64
}

// watchAbsence starts reading through reg whether e's server is registered, until ctx ends
// or it is. Before the first read, absence is -1: nothing is known.
func watchAbsence(ctx context.Context, reg framework.Registrar, e *framework.Endpoint, tl *Timeline, interval time.Duration) *absenceWatch {
	w := &absenceWatch{absent: -1}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			sent := tl.Since()
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err := reg.Find(rctx, e)
			cancel()
			switch {
			case ctx.Err() != nil:
				return
			case err == nil:
				return // registered: absence ends here
			case errors.Is(err, framework.ErrNotRegistered):
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

// AbsentUntil is when the last read was sent that found the server unregistered, -1 when
// no read did.
func (w *absenceWatch) AbsentUntil() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.absent
}
