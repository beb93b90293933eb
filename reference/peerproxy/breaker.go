package peerproxy

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// breakerOpen is how long FlawCircuitBreaker leaves a peer alone after its last failed
// request: past the suites' converge bound (90 s) by more than a probe's interval and
// timeout, so a peer back after a held fault is still refused when it must be used, and
// short enough that the next test meets a converged cluster again.
const breakerOpen = 120 * time.Second

// probeEvery is how often FlawCircuitBreaker sends a request to a peer it leaves alone.
const probeEvery = 5 * time.Second

// breaker is FlawCircuitBreaker's memory: when each peer last failed a request, and when
// it was last probed.
type breaker struct {
	mu     sync.Mutex
	failed map[string]time.Time
	probed map[string]time.Time
}

// trip records that a request to targets failed at now.
func (b *breaker) trip(targets []string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failed == nil {
		b.failed = map[string]time.Time{}
	}
	for _, t := range targets {
		b.failed[t] = now
	}
}

// open says whether every one of targets failed within breakerOpen of now, so that
// FlawCircuitBreaker tries none of them.
func (b *breaker) open(targets []string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range targets {
		if at, ok := b.failed[t]; !ok || now.Sub(at) > breakerOpen {
			return false
		}
	}
	return len(targets) > 0
}

// probeDue says whether target is to be probed now (once per probeEvery), and counts the
// probe as sent.
func (b *breaker) probeDue(target string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.probed == nil {
		b.probed = map[string]time.Time{}
	}
	if now.Sub(b.probed[target]) < probeEvery {
		return false
	}
	b.probed[target] = now
	return true
}

// probe asks the first of targets for /version, anonymously, within the peer timeout, as
// FlawCircuitBreaker's probe: a failure opens the breaker again for that target alone (the
// others were not asked); a success changes nothing.
func (p *Proxy) probe(targets []string) {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.PeerTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, targets[0]+"/version", nil)
	if err == nil {
		var resp *http.Response
		if resp, err = p.anon.RoundTrip(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode < http.StatusInternalServerError {
				return
			}
		}
	}
	p.breaker.trip(targets[:1], time.Now())
}
