package existing

import (
	"context"
	"time"
)

// sleep waits for d, or until ctx is done, whichever is first: a poll interrupted (the user's
// ^C, a run's bound) ends now, not a poll later. It says nothing of which it was: each loop
// that sleeps asks ctx itself on its next turn, and says it in its own words.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
