package gateway

import (
	"bytes"
	"context"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// take acquires n streams for client without waiting, failing the test if one is refused.
func take(t *testing.T, s *fairStreams, client string, n int) []func() {
	t.Helper()
	var out []func()
	for i := range n {
		release, err := s.acquire(context.Background(), client, tryOnly)
		if err != nil {
			t.Fatalf("%s's stream %d of %d: %v", client, i+1, n, err)
		}
		out = append(out, release)
	}
	return out
}

// One client alone holds at most capacity minus the reserve; a second client finds the
// reserve free at once, while the first, above its share now, gets nothing more.
func TestFairStreamsKeepTheReserve(t *testing.T) {
	s := newFairStreams(400)
	take(t, s, "greedy", 360)
	var busy errNoStream
	if _, err := s.acquire(context.Background(), "greedy", tryOnly); !errors.As(err, &busy) {
		t.Fatalf("the greedy client's 361st stream of 400: %v, want errNoStream (40 are kept for others)", err)
	}
	take(t, s, "other", 40)
	if _, err := s.acquire(context.Background(), "greedy", tryOnly); !errors.As(err, &busy) || busy.inUse != 400 || busy.mine != 360 {
		t.Fatalf("with every stream in use: %v, want errNoStream saying 400 in use, 360 the greedy client's", err)
	}
	if len(s.clients) != 2 {
		t.Errorf("%d clients counted, want 2 (a refused try counts for nothing)", len(s.clients))
	}
}

// A stream that comes free goes to a waiting client below its share before the client
// above it, whose requests came first.
func TestFairStreamsFreeStreamGoesToTheClientBelowItsShare(t *testing.T) {
	s := newFairStreams(10) // reserve 1: one client alone holds 9
	greedy := take(t, s, "greedy", 9)
	take(t, s, "other", 1)
	greedyWaits := make(chan error, 1)
	go func() {
		_, err := s.acquire(context.Background(), "greedy", 0)
		greedyWaits <- err
	}()
	otherGot := make(chan error, 1)
	waitQueued(t, s, 1)
	go func() {
		_, err := s.acquire(context.Background(), "other", 0)
		otherGot <- err
	}()
	waitQueued(t, s, 2)
	greedy[0]()
	if err := <-otherGot; err != nil {
		t.Fatalf("the other client, below its share of 5: %v", err)
	}
	select {
	case err := <-greedyWaits:
		t.Fatalf("the greedy client, above its share, got the stream that came free (%v)", err)
	default:
	}
	for _, release := range greedy[1:3] { // two free now, more than the reserve of 1
		release()
	}
	if err := <-greedyWaits; err != nil {
		t.Fatalf("the greedy client, with more than the reserve free: %v", err)
	}
}

// waitQueued waits until n clients have requests waiting.
func waitQueued(t *testing.T, s *fairStreams, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		s.mu.Lock()
		queued := len(s.waiting)
		s.mu.Unlock()
		if queued == n {
			return
		}
	}
	t.Fatalf("never %d clients waiting", n)
}

// A wait ends with errNoStream at its bound, or with the request's context, and leaves
// nothing behind: the client no longer counts in the shares.
func TestFairStreamsWaitIsBounded(t *testing.T) {
	s := newFairStreams(10)
	take(t, s, "greedy", 9)
	var busy errNoStream
	if _, err := s.acquire(context.Background(), "greedy", 10*time.Millisecond); !errors.As(err, &busy) || busy.waited != 10*time.Millisecond {
		t.Fatalf("a wait bounded by 10ms: %v, want errNoStream after 10ms", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.acquire(ctx, "greedy", 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("a wait whose context ended: %v, want context.Canceled", err)
	}
	if len(s.waiting) != 0 || len(s.clients["greedy"].waiters) != 0 || s.inUse != 9 {
		t.Errorf("after the waits: %d clients waiting, %d requests, %d streams in use; want 0, 0 and 9", len(s.waiting), len(s.clients["greedy"].waiters), s.inUse)
	}
}

// retrying: a target without a free stream was sent nothing, so even a create moves on to
// the next target, which is only tried for a stream free now; the busy target is not
// marked failed; with none free the error is errBusy.
func TestRetryingMovesOnWhenBusy(t *testing.T) {
	a, b := &upstream{endpoint: "https://a", url: &url.URL{Scheme: "https", Host: "a"}}, &upstream{endpoint: "https://b", url: &url.URL{Scheme: "https", Host: "b"}}
	for _, tc := range []struct {
		name     string
		bFree    bool
		answered string
	}{{"b has a stream free", true, "https://b"}, {"no stream anywhere", false, ""}} {
		var waits []time.Duration
		next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			claim := claimOf(r.Context())
			waits = append(waits, claim.wait)
			if r.URL.Host == "b" && tc.bFree {
				return &http.Response{StatusCode: 201, Body: http.NoBody}, nil
			}
			return nil, errNoStream{client: claim.client}
		})
		var answered string
		failed := false
		rt := &retrying{next: next, targets: []*upstream{a, b}, claim: streamClaim{client: "alice", wait: 5 * time.Second},
			answered: func(u *upstream) { answered = u.endpoint }, onError: func(*upstream, error) { failed = true }}
		req, _ := http.NewRequest(http.MethodPost, "https://a/api/v1/namespaces/default/configmaps", http.NoBody)
		_, err := rt.RoundTrip(req)
		if answered != tc.answered || failed || len(waits) != 2 || waits[0] != 5*time.Second || waits[1] != tryOnly {
			t.Errorf("%s: answered by %q (want %q), marked failed %v, waits %v (want 5s, then none)", tc.name, answered, tc.answered, failed, waits)
		}
		if busy := errors.As(err, new(errBusy)); busy == tc.bFree {
			t.Errorf("%s: error %v, errBusy %v", tc.name, err, busy)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A request no server had a stream for is answered 503 with Retry-After and a message
// that names nothing of the gateway's; the log says whose it was and how the streams
// were held.
func TestBusyIsServiceUnavailable(t *testing.T) {
	var logged bytes.Buffer
	g := &Gateway{cfg: Config{StreamWait: time.Second}, metrics: newMetrics(), errorLog: log.New(&logged, "", 0)}
	c := &cluster{name: "c", conn: &connector{rt: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, errNoStream{client: claimOf(r.Context()).client, waited: time.Second, inUse: 400, mine: 360, capacity: 400, clientsSharing: 2}
	})}}
	up := &upstream{endpoint: "https://10.9.8.7:6443", url: &url.URL{Scheme: "https", Host: "10.9.8.7:6443"}}
	w := httptest.NewRecorder()
	g.forward(w, httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil), c, "alice", &authn.User{Name: "alice"}, []*upstream{up}, func(*upstream) {})
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), unavailableBusy) || strings.Contains(w.Body.String(), "10.9.8.7") {
		t.Errorf("%d, Retry-After %q, %s; want 503, Retry-After 1, %q and no address", w.Code, w.Header().Get("Retry-After"), w.Body, unavailableBusy)
	}
	if want := `no stream free for "alice" within 1s: 400 of 400 in use, 360 of them its own`; !strings.Contains(logged.String(), want) {
		t.Errorf("the log says %q, want %q", logged.String(), want)
	}
	if up.checked.Load() { // markFailed records a verdict: busy is none
		t.Errorf("the busy upstream was marked failed: %+v", up.status())
	}
}
