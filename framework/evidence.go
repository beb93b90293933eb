package framework

import (
	"context"
	"net/http"
	"sync"
)

// evidence collects the probe responses of the running test, so that when a test fails
// the report shows what was actually sent and received, not only the assertion. A test
// under load sends thousands of probes: the first evidenceHead (how it began) and the last
// evidenceTail (what happened when it failed) are kept, and how many were left out between.
// Each Env has its own, and reaches the probes through the test's context (withEvidence):
// two runs in one process (the nightly's, a library user's) never see each other's
// responses, and a probe outside any test (a benchmark, convergence) records nothing.

const evidenceHead, evidenceTail = 100, 400

type evidence struct {
	mu      sync.Mutex
	head    []Response
	tail    []Response // a ring of the latest, next is where the next one goes
	next    int
	dropped int
}

func (e *evidence) add(r Response) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.head) < evidenceHead {
		e.head = append(e.head, r)
		return
	}
	if len(e.tail) < evidenceTail {
		e.tail = append(e.tail, r)
		return
	}
	e.tail[e.next] = r
	e.next = (e.next + 1) % evidenceTail
	e.dropped++
}

// Take returns the responses recorded since the last Take, in order, and starts afresh;
// Dropped says how many were left out between the first and the last kept.
func (e *evidence) Take() (responses []Response, dropped int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append(e.head, e.tail[e.next:]...)
	out = append(out, e.tail[:e.next]...)
	dropped = e.dropped
	e.head, e.tail, e.next, e.dropped = nil, nil, 0, 0
	return out, dropped
}

// evidenceKey carries the running test's evidence in its context.
type evidenceKey struct{}

func withEvidence(ctx context.Context, e *evidence) context.Context {
	return context.WithValue(ctx, evidenceKey{}, e)
}

// record adds a probe's response to the evidence its context carries, if any.
func record(ctx context.Context, r Response) {
	if e, ok := ctx.Value(evidenceKey{}).(*evidence); ok && e != nil {
		e.add(r)
	}
}

// quiet marks a context whose probes are not a test's evidence (convergence polling).
func quiet(ctx context.Context) context.Context { return withEvidence(ctx, nil) }

// redacted is a request's headers as evidence may show them: credentials replaced.
func redacted(h http.Header) http.Header {
	out := h.Clone()
	for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
		if out.Get(k) != "" {
			out.Set(k, "[redacted]")
		}
	}
	return out
}
