package chaos

import (
	"context"
	"time"

	"github.com/skewcheck/skewcheck/framework"
)

// ask is one probe, run under the context it is given: the loop that asks bounds it so.
type ask func(context.Context) framework.Response

// probing is the ask of req through e.
func probing(e *framework.Endpoint, req framework.Request) ask {
	return func(ctx context.Context) framework.Response { return probe(ctx, e, req) }
}

// askUntil asks until settled says an answer settles the question, and returns that answer
// and true; or, when deadline passes first, the last answer and false. Every ask runs under
// a context that ends at deadline, none starts once it has passed, and the pauses between
// asks end there too, so the whole loop ends within deadline whatever the server does: a
// probe's own bound (90 s, for upstream's 45 s on a frozen peer) cannot carry the last ask
// past it, and a figure measured against deadline (a recovery, a write read back) cannot
// come from an answer after it.
//
// A probe the deadline cut (no status) says less than the answer before it, so it is the
// last answer only when it is the only one: the assertions on the last answer (404 still
// after healing: suites/chaos droppedOnSync) see what the server last said.
func askUntil(ctx context.Context, deadline time.Time, pause time.Duration, a ask, settled func(framework.Response) bool) (framework.Response, bool) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var last framework.Response
	// The clock too, not only ctx: a loaded machine can fire the deadline's timer late.
	for tries := 0; ctx.Err() == nil && time.Now().Before(deadline); tries++ {
		r := a(ctx)
		if settled(r) {
			return r, true
		}
		if ctx.Err() != nil && r.Status == 0 && tries > 0 {
			return last, false
		}
		last = r
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
	return last, false
}

// readBack reports whether the peer has an acknowledged object: 200 says yes, 404 says it
// is lost, and anything else (an error, a 5xx) is asked again until bound, after which a
// write that cannot be shown to exist counts as lost.
func readBack(ctx context.Context, a ask, bound time.Duration) bool {
	r, settled := askUntil(ctx, time.Now().Add(bound), 200*time.Millisecond, a, func(r framework.Response) bool {
		return r.Status == 200 || r.Status == 404
	})
	return settled && r.Status == 200
}

// awaitRecovery asks until the first 200 within bound of healed, and returns how long
// after healing it came; or, when none came, false and the status of the last answer (0:
// no answer), what clients were still told when the bound ran out.
func awaitRecovery(ctx context.Context, a ask, healed time.Time, bound time.Duration) (took time.Duration, last int, recovered bool) {
	r, ok := askUntil(ctx, healed.Add(bound), 100*time.Millisecond, a, func(r framework.Response) bool { return r.Status == 200 })
	if !ok {
		return 0, r.Status, false
	}
	return time.Since(healed), 200, true
}

// pathWorks waits up to bound for path through e to answer 200, and returns the last
// answer and how long it waited: a fault starts from a path that works, also after an
// earlier fault whose effects on the proxy outlast it (a test that failed for a proxy
// still refusing its peer leaves it so for a while). The whole wait ends within bound
// (askUntil), so a server that hangs (a frozen peer, 45 s for upstream to give up on it)
// cannot hold it a probe's own 90 s past bound.
func pathWorks(ctx context.Context, e *framework.Endpoint, path string, bound time.Duration) (framework.Response, time.Duration) {
	start := time.Now()
	r, _ := askUntil(ctx, start.Add(bound), time.Second, probing(e, framework.Request{Path: path}), func(r framework.Response) bool { return r.Status == 200 })
	return r, time.Since(start)
}
