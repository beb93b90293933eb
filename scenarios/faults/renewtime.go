package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/skewcheck/skewcheck/framework"
)

// skewPoll is how often a skewed registration is read: a renewal stands unskewed for at
// most this long (plus a round trip) before it is moved again.
const skewPoll = 100 * time.Millisecond

// renewSkew keeps the registration of one server renewed at the wrong time, as that
// server would renew it if its clock were off by skew: after each renewal its renew time
// is rewritten to the one written plus skew, through the target's registrar, so it acts
// alike on upstream's identity leases and on a proxy's own. Heal stops rewriting; the
// server's next renewal writes its true time again.
type renewSkew struct {
	name     string
	reg      framework.RenewTimes
	endpoint *framework.Endpoint
	skew     time.Duration

	stop  func()
	done  chan struct{}
	lease string // the registration's name, found by Inject
	mu    sync.Mutex
	last  time.Time // the renew time the last rewrite left
	err   error     // the last rewrite's failure other than a lost race with a renewal
}

// RenewSkew is the fault named name: e's server's registration renewed skew off the true
// time for as long as it lasts (negative: its clock is behind).
func RenewSkew(name string, reg framework.RenewTimes, e *framework.Endpoint, skew time.Duration) Fault {
	return &renewSkew{name: name, reg: reg, endpoint: e, skew: skew}
}

func (f *renewSkew) Name() string { return f.name }

func (f *renewSkew) Description() string {
	return fmt.Sprintf("the registration of %s (%s) renewed with a renew time %s off, rewritten after each renewal", f.endpoint.Name, f.reg.Mechanism(), signed(f.skew))
}

func signed(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// Inject finds the registration and skews it once before returning, so the fault is in
// place when Inject returns; then keeps it skewed after every renewal.
func (f *renewSkew) Inject(ctx context.Context) error {
	reg, err := f.reg.Find(ctx, f.endpoint)
	if err != nil {
		return fmt.Errorf("finding the registration of %s to skew: %w", f.endpoint.Name, err)
	}
	var done time.Time
	for {
		if done, err = f.reg.SkewRenewal(ctx, reg.Name, f.skew, done); err == nil {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("skewing registration %s: %w", reg.Name, err)
		}
		time.Sleep(skewPoll) // a renewal came in between: read it again
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	f.stop, f.done, f.lease, f.last = stop, make(chan struct{}), reg.Name, done
	go f.keep(rctx, reg.Name, done)
	return nil
}

// keep rewrites the renew time after each renewal until ctx ends. A registration that is
// gone (a garbage collector took it for expired) is waited for: its server registers
// again, and that renewal is skewed too.
func (f *renewSkew) keep(ctx context.Context, name string, done time.Time) {
	defer close(f.done)
	tick := time.NewTicker(skewPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		got, err := f.reg.SkewRenewal(rctx, name, f.skew, done)
		cancel()
		f.mu.Lock()
		switch {
		case err == nil:
			done, f.last, f.err = got, got, nil
		case errors.Is(err, framework.ErrNotRegistered) || apierrors.IsConflict(err) || ctx.Err() != nil:
			// gone (it comes back), a renewal in between (read again), or healed
		default:
			f.err = err
		}
		f.mu.Unlock()
	}
}

// healBound bounds how long Heal waits for the server's own renewal: upstream renews
// every 10 s, the reference every 5 s.
const healBound = 30 * time.Second

// Heal stops rewriting and waits until the server's own renewal has written its true time
// again, as it would once its clock is set right: Heal writes no time itself. A server
// that does not renew within healBound fails the heal, naming it.
func (f *renewSkew) Heal(ctx context.Context) error {
	if f.stop == nil {
		return nil
	}
	f.stop()
	<-f.done
	f.mu.Lock()
	name, done, lastErr := f.lease, f.last, f.err
	f.mu.Unlock()
	deadline := time.Now().Add(healBound)
	for time.Now().Before(deadline) {
		// A skew of 0 moves nothing: it says whether a renewal came since done.
		got, err := f.reg.SkewRenewal(ctx, name, 0, done)
		if err == nil && !got.Equal(done) {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(skewPoll)
	}
	if lastErr != nil {
		return fmt.Errorf("no renewal of %s within %s after the skew stopped, and the last rewrite failed: %w", name, healBound, lastErr)
	}
	return fmt.Errorf("no renewal of %s within %s after the skew stopped: its server does not renew it", name, healBound)
}

// WithRegistrar is s with the target's registrar, for the faults that act on
// registrations (Registration).
func (s Subject) WithRegistrar(r framework.Registrar) Subject {
	s.registrar = r
	return s
}

// renewSkew makes the named lease time fault for s, which has a RenewTimes registrar.
func (s Subject) renewSkew(name string, skew time.Duration) Fault {
	return RenewSkew(name, s.registrar.(framework.RenewTimes), s.endpoint, skew)
}
