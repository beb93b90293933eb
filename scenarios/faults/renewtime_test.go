package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// renewals is a registrar of one registration, "lease-2", whose server renews it when
// the test says (renew) at the true time; SkewRenewal works as on a Lease.
type renewals struct {
	mu      sync.Mutex
	renewed time.Time // what the registration says
	gone    bool
	writes  int // skewed writes
}

func (r *renewals) Find(context.Context, *framework.Endpoint) (framework.Registration, error) {
	return framework.Registration{Name: "lease-2", Holder: "apiserver-2"}, nil
}
func (r *renewals) Read(ctx context.Context, name string) (framework.Registration, error) {
	return r.Find(ctx, nil)
}
func (r *renewals) Expire(context.Context, string) error { return nil }
func (r *renewals) Forge(context.Context, string) (framework.Registration, error) {
	return framework.Registration{}, errors.New("not here")
}
func (r *renewals) Mechanism() string { return "test renewals" }

func (r *renewals) SkewRenewal(_ context.Context, name string, skew time.Duration, done time.Time) (time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone {
		return time.Time{}, fmt.Errorf("%w: %s", framework.ErrNotRegistered, name)
	}
	if r.renewed.Equal(done) {
		return done, nil
	}
	r.renewed = r.renewed.Add(skew)
	r.writes++
	return r.renewed, nil
}

// renew is the server renewing its registration at t (or registering again after a
// garbage collector deleted it).
func (r *renewals) renew(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.renewed, r.gone = t, false
}

func (r *renewals) state() (time.Time, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.renewed, r.writes
}

// waitFor polls until the registration says want.
func (r *renewals) waitFor(t *testing.T, want time.Time) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got, _ := r.state(); got.Equal(want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, _ := r.state()
	t.Fatalf("renew time %v, want %v", got, want)
}

// A skew holds over every renewal, once per renewal (never skewing its own write again),
// and over a registration deleted and made again; Heal returns once the server's own
// renewal stands.
func TestRenewSkewFollowsRenewals(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	r := &renewals{renewed: t0}
	cluster := localCluster()
	f, err := ByName("clock-behind-2h", NewSubject(cluster, cluster[1], cluster[0]).WithRegistrar(r))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.state(); !got.Equal(t0.Add(-2 * time.Hour)) {
		t.Fatalf("after Inject the renew time is %v, want it 2 h behind %v", got, t0)
	}
	time.Sleep(3 * skewPoll)
	if _, writes := r.state(); writes != 1 {
		t.Fatalf("%d skewed writes with no renewal in between, want 1: a skew must not skew itself", writes)
	}
	r.renew(t0.Add(10 * time.Second))
	r.waitFor(t, t0.Add(10*time.Second-2*time.Hour))
	r.mu.Lock()
	r.gone = true
	r.mu.Unlock()
	time.Sleep(2 * skewPoll)
	r.renew(t0.Add(20 * time.Second))
	r.waitFor(t, t0.Add(20*time.Second-2*time.Hour))
	healed := make(chan error, 1)
	go func() { healed <- f.Heal(ctx) }()
	time.Sleep(3 * skewPoll)
	select {
	case err := <-healed:
		t.Fatalf("Heal returned (%v) before the server renewed: the skew still stood", err)
	default:
	}
	r.renew(t0.Add(30 * time.Second))
	if err := <-healed; err != nil {
		t.Fatal(err)
	}
	if got, _ := r.state(); !got.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("healed, the renewal's own time must stand: %v", got)
	}
}

// Without a registrar that rewrites renew times, the lease time faults are Missing it.
func TestRenewSkewNeedsRenewTimes(t *testing.T) {
	cluster := localCluster()
	_, err := ByName("clock-ahead-2h", NewSubject(cluster, cluster[1], cluster[0]))
	var missing *Missing
	if !errors.As(err, &missing) || missing.Capability != Registration {
		t.Fatalf("no registrar: %v, want Missing %s", err, Registration)
	}
}
