package gateway

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// limiter is a flow-control schema at work. admit either lets a request in, with a
// release to call when it is done, or refuses it and says when to retry.
type limiter interface {
	admit(longRunning bool) (release func(), retryAfter time.Duration, ok bool)
	// kind names the schema's kind for metrics and messages.
	kind() string
}

func newLimiter(s gwapi.FlowControlSchema, d Defects) limiter {
	switch {
	case s.MaxRequestsInflight != nil:
		return &inflight{max: int(s.MaxRequestsInflight.Max), countWatches: d.InflightCountsWatches}
	case s.TokenBucket != nil && d.NoTokenBucket: // the defect: GW-041 must catch it
		return exempt{}
	case s.Exempt != nil && d.RefuseExempt: // the defect, a max never set: GW-042 must catch it
		return &inflight{max: 0}
	case s.TokenBucket != nil:
		return &tokenBucket{qps: float64(s.TokenBucket.QPS), now: time.Now,
			limiter: rate.NewLimiter(rate.Limit(s.TokenBucket.QPS), int(s.TokenBucket.Burst))}
	}
	return exempt{}
}

// exempt admits everything; a policy with no schema gets it too.
type exempt struct{}

func (exempt) admit(bool) (func(), time.Duration, bool) { return func() {}, 0, true }
func (exempt) kind() string                             { return "Exempt" }

// inflight bounds requests in progress. Long-running requests are admitted without a
// slot, as kube-apiserver's max-in-flight filter does: a watch lasts as long as its client
// wants, and a few hundred idle watches must not starve every other request.
type inflight struct {
	mu      sync.Mutex
	max, in int
	// countWatches is the InflightCountsWatches defect.
	countWatches bool
}

// inflightRetryAfter is what a refused client is told: slots free as requests finish,
// typically within milliseconds, so the smallest value Retry-After can say.
const inflightRetryAfter = time.Second

func (l *inflight) admit(longRunning bool) (func(), time.Duration, bool) {
	if longRunning && !l.countWatches { // the defect: GW-040 must catch it
		return func() {}, 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.in >= l.max {
		return nil, inflightRetryAfter, false
	}
	l.in++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			l.in--
			l.mu.Unlock()
		})
	}, 0, true
}

func (l *inflight) kind() string { return "MaxRequestsInflight" }

// inFlight is how many requests hold a slot now (for tests).
func (l *inflight) inFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.in
}

// tokenBucket admits qps requests a second on average, bursts up to burst. Every request
// takes a token, long-running ones too: starting a watch costs the upstreams what any
// other request does.
type tokenBucket struct {
	qps     float64
	limiter *rate.Limiter
	now     func() time.Time // the clock; tests step it
}

func (l *tokenBucket) admit(bool) (func(), time.Duration, bool) {
	now := l.now()
	if l.limiter.AllowN(now, 1) {
		return func() {}, 0, true
	}
	// The time until one whole token is back.
	missing := 1 - l.limiter.TokensAt(now)
	return nil, time.Duration(missing / l.qps * float64(time.Second)), false
}

func (l *tokenBucket) kind() string { return "TokenBucket" }

// retryAfterSeconds is a Retry-After value: whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
