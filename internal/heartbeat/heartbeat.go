// Package heartbeat says, during minutes-long work (a build, an image, a download), that
// the work goes on and for how long so far, so nobody waits minutes in silence.
package heartbeat

import (
	"sync"
	"time"
)

// Every calls beat with the time since it was called, every period, until the returned
// stop is called; stop may be called more than once.
func Every(period time.Duration, beat func(elapsed time.Duration)) (stop func()) {
	start := time.Now()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				beat(time.Since(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}
