// Package faults is what can go wrong between and inside apiservers, as values: each fault
// says what it is, is injected, and is always healed, also when a run is interrupted.
package faults

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
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

// Inject injects f and remembers it, so that HealAll (and SIGINT or SIGTERM) heals it even
// if the caller never gets to. Call the returned heal when done; it is safe to call twice.
func Inject(ctx context.Context, f Fault) (heal func(context.Context) error, err error) {
	if err := f.Inject(ctx); err != nil {
		return nil, fmt.Errorf("injecting %s (%s): %w", f.Name(), f.Description(), err)
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
	heals    map[Fault]func(context.Context) error
	watching bool
}{heals: map[Fault]func(context.Context) error{}}

func remember(f Fault, heal func(context.Context) error) {
	injected.Lock()
	defer injected.Unlock()
	injected.heals[f] = heal
	if !injected.watching {
		injected.watching = true
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sigs
			HealAll(context.Background())
		}()
	}
}

func forget(f Fault) {
	injected.Lock()
	defer injected.Unlock()
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
