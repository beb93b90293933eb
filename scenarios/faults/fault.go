// Package faults is what can go wrong between and inside apiservers, as values: each fault
// says what it is, is injected, and is always healed, also when a run is interrupted.
package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/skewcheck/skewcheck/internal/interrupt"
)

// Fault is one thing going wrong, reversibly.
type Fault interface {
	// Name is the short name users pick it by: freeze, crash, latency, ...
	Name() string
	// Description says exactly what is done, for the report.
	Description() string
	Inject(ctx context.Context) error
	Heal(ctx context.Context) error
}

// Unsupported is returned by Inject when this machine cannot do the fault (no nft binary,
// no nftables in the kernel): the caller skips the fault with the reason, it does not fail.
type Unsupported struct{ Reason string }

func (u Unsupported) Error() string { return "not supported on this machine: " + u.Reason }

// Inject injects f and remembers it, so that HealAll, or an interrupt (SIGINT, SIGTERM),
// heals it even if the caller never gets to. Call the returned heal when done; it is safe to call twice.
//
// An injection that fails may have taken effect all the same: a graceful stop that did not
// end within its bound was a kill, a rule set may be half programmed. So a failed Inject is
// healed at once (except where the machine cannot do the fault at all), and the error says
// so: one fault's failure must not leave a server down for every test after it.
func Inject(ctx context.Context, f Fault) (heal func(context.Context) error, err error) {
	if err := f.Inject(ctx); err != nil {
		err = fmt.Errorf("injecting %s (%s): %w", f.Name(), f.Description(), err)
		if errors.As(err, new(Unsupported)) {
			return nil, err
		}
		if herr := f.Heal(ctx); herr != nil {
			return nil, fmt.Errorf("%w; healing what it may have done: %v", err, herr)
		}
		return nil, fmt.Errorf("%w; healed what it may have done", err)
	}
	var once sync.Once
	var herr error
	heal = func(ctx context.Context) error {
		once.Do(func() {
			forget(f)
			if err := f.Heal(ctx); err != nil {
				herr = fmt.Errorf("healing %s (%s): %w", f.Name(), f.Description(), err)
			}
		})
		return herr
	}
	remember(f, heal)
	return heal, nil
}

var injected = struct {
	sync.Mutex
	forget map[Fault]func()
	heals  map[Fault]func(context.Context) error
}{forget: map[Fault]func(){}, heals: map[Fault]func(context.Context) error{}}

func remember(f Fault, heal func(context.Context) error) {
	injected.Lock()
	defer injected.Unlock()
	injected.heals[f] = heal
	injected.forget[f] = interrupt.OnInterrupt(func() { heal(context.Background()) })
}

func forget(f Fault) {
	injected.Lock()
	defer injected.Unlock()
	if unregister, ok := injected.forget[f]; ok {
		unregister()
	}
	delete(injected.forget, f)
	delete(injected.heals, f)
}

// HealAll heals every fault still injected.
func HealAll(ctx context.Context) {
	injected.Lock()
	var heals []func(context.Context) error
	for _, h := range injected.heals {
		heals = append(heals, h)
	}
	injected.Unlock()
	for _, h := range heals {
		h(ctx)
	}
}
