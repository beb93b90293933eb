package nodeimage

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/internal/heartbeat"
)

// progress prints one line per step of minutes-long work, so nobody waits in silence.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func newProgress(w io.Writer) *progress {
	if w == nil {
		w = io.Discard
	}
	return &progress{w: w}
}

func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "node image: "+format+"\n", args...)
}

// every prints what (with the time so far) every period until the returned stop is called.
func (p *progress) every(period time.Duration, what string) (stop func()) {
	return heartbeat.Every(period, func(elapsed time.Duration) { p.printf("%s (%s)", what, elapsed) })
}
