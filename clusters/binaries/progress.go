package binaries

import (
	"fmt"
	"io"
	"sync"
)

// progress writes whole lines to Options.Progress. A build reports from a
// ticker goroutine while the main flow may also report, so writes are
// serialised to keep lines intact.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) printf(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}
