package stack

import (
	"errors"
	"sync"
)

// undo is what a Build made, each with how to unmake it, registered as it is made: run
// unmakes them newest first (the front before the cluster it stands on), every one even
// when another fails, once however often it is called, and returns every failure joined.
type undo struct {
	once  sync.Once
	steps []func() error
	err   error
}

// push registers how to unmake what was just made.
func (u *undo) push(step func() error) { u.steps = append(u.steps, step) }

func (u *undo) run() error {
	u.once.Do(func() {
		var errs []error
		for i := len(u.steps) - 1; i >= 0; i-- {
			errs = append(errs, u.steps[i]())
		}
		u.err = errors.Join(errs...)
	})
	return u.err
}
