package peerproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// refusedURL is an address nobody listens on: a listener opened and closed at once.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// countingServer answers 200 with body and counts requests; it records the last Host.
func countingServer(t *testing.T, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Served-Host", r.Host)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// hangingServer accepts requests and writes nothing until the client gives up (or the test ends).
func hangingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) }) // runs first: Close waits for handlers
	return srv, &hits
}

// newRequest is a request as ReverseProxy hands it to its Transport: aimed at the first target.
func newRequest(t *testing.T, ctx context.Context, method, target string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, target+"/api/v1/namespaces/ns/pods", body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestFailoverRetriesIdempotentOnNextTarget(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions} {
		t.Run(method, func(t *testing.T) {
			refused := refusedURL(t)
			srv, hits := countingServer(t, "ok")
			var errs atomic.Int32
			f := &failover{next: http.DefaultTransport, targets: []string{refused, srv.URL},
				idempotent: idempotent(method), onError: func() { errs.Add(1) }}
			resp, err := f.RoundTrip(newRequest(t, context.Background(), method, refused, nil))
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d, want 200", resp.StatusCode)
			}
			if got, want := resp.Header.Get("X-Served-Host"), strings.TrimPrefix(srv.URL, "http://"); got != want {
				t.Errorf("second target saw Host %q, want %q", got, want)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("second target hit %d times, want 1", n)
			}
			if n := errs.Load(); n != 1 {
				t.Errorf("onError called %d times, want 1", n)
			}
		})
	}
}

func TestFailoverDoesNotRetryNonIdempotent(t *testing.T) {
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		t.Run(method, func(t *testing.T) {
			refused := refusedURL(t)
			srv, hits := countingServer(t, "ok")
			var errs atomic.Int32
			f := &failover{next: http.DefaultTransport, targets: []string{refused, srv.URL},
				idempotent: idempotent(method), onError: func() { errs.Add(1) }}
			resp, err := f.RoundTrip(newRequest(t, context.Background(), method, refused, strings.NewReader(`{"kind":"Pod"}`)))
			if err == nil {
				resp.Body.Close()
				t.Fatalf("RoundTrip succeeded with status %d, want an error", resp.StatusCode)
			}
			if !strings.Contains(err.Error(), strings.TrimPrefix(refused, "http://")) {
				t.Errorf("error %q does not name the refused target", err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("second target hit %d times, want 0", n)
			}
			if n := errs.Load(); n != 1 {
				t.Errorf("onError called %d times, want 1", n)
			}
		})
	}
}

func TestFailoverAllTargetsFail(t *testing.T) {
	a, b := refusedURL(t), refusedURL(t)
	var errs atomic.Int32
	f := &failover{next: http.DefaultTransport, targets: []string{a, b}, idempotent: true, onError: func() { errs.Add(1) }}
	resp, err := f.RoundTrip(newRequest(t, context.Background(), http.MethodGet, a, nil))
	if err == nil {
		resp.Body.Close()
		t.Fatal("RoundTrip succeeded, want an error")
	}
	for _, u := range []string{a, b} {
		if !strings.Contains(err.Error(), strings.TrimPrefix(u, "http://")) {
			t.Errorf("error %q does not name %s", err, u)
		}
	}
	if n := errs.Load(); n != 2 {
		t.Errorf("onError called %d times, want 2", n)
	}
}

func TestFailoverStopsWhenClientGone(t *testing.T) {
	hang, _ := hangingServer(t)
	srv, hits := countingServer(t, "ok")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	f := &failover{next: http.DefaultTransport, targets: []string{hang.URL, srv.URL}, idempotent: true, onError: func() {}}
	resp, err := f.RoundTrip(newRequest(t, ctx, http.MethodGet, hang.URL, nil))
	if err == nil {
		resp.Body.Close()
		t.Fatal("RoundTrip succeeded, want an error")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("second target hit %d times after the client went away, want 0", n)
	}
}

func TestFailoverBoundsWaitForHeaders(t *testing.T) {
	hang, hits := hangingServer(t)
	var errs atomic.Int32
	f := &failover{next: http.DefaultTransport, targets: []string{hang.URL}, bound: 200 * time.Millisecond,
		idempotent: true, onError: func() { errs.Add(1) }}
	start := time.Now()
	resp, err := f.RoundTrip(newRequest(t, context.Background(), http.MethodGet, hang.URL, nil))
	elapsed := time.Since(start)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("RoundTrip succeeded with status %d, want an error", resp.StatusCode)
	}
	if !strings.Contains(err.Error(), "no response within") {
		t.Errorf("error %q does not mention %q", err, "no response within")
	}
	if elapsed > time.Second {
		t.Errorf("RoundTrip took %v, want about the 200ms bound", elapsed)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("target hit %d times, want 1", n)
	}
	if n := errs.Load(); n != 1 {
		t.Errorf("onError called %d times, want 1", n)
	}
}

func TestFailoverBoundThenNextTarget(t *testing.T) {
	hang, _ := hangingServer(t)
	srv, hits := countingServer(t, "ok")
	var errs atomic.Int32
	f := &failover{next: http.DefaultTransport, targets: []string{hang.URL, srv.URL}, bound: 200 * time.Millisecond,
		idempotent: true, onError: func() { errs.Add(1) }}
	start := time.Now()
	resp, err := f.RoundTrip(newRequest(t, context.Background(), http.MethodGet, hang.URL, nil))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "ok" {
		t.Errorf("body %q, %v; want ok", b, err)
	}
	if elapsed > time.Second {
		t.Errorf("RoundTrip took %v, want about the 200ms bound", elapsed)
	}
	if hits.Load() != 1 || errs.Load() != 1 {
		t.Errorf("second target hits %d, onError calls %d; want 1, 1", hits.Load(), errs.Load())
	}
}

// ctxRecorder remembers the context of the last request it forwards.
type ctxRecorder struct {
	next http.RoundTripper
	ctx  context.Context
}

func (c *ctxRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	c.ctx = req.Context()
	return c.next.RoundTrip(req)
}

func TestFailoverBoundDoesNotCutTheBody(t *testing.T) {
	const bound = 200 * time.Millisecond
	// Headers come at once; the body comes in two parts, the second after longer than the
	// bound. The bound covers only the wait for headers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first,")
		w.(http.Flusher).Flush()
		select {
		case <-time.After(2 * bound):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, strings.Repeat("x", 1<<20))
	}))
	defer srv.Close()
	rec := &ctxRecorder{next: http.DefaultTransport}
	var errs atomic.Int32
	f := &failover{next: rec, targets: []string{srv.URL}, bound: bound, idempotent: true, onError: func() { errs.Add(1) }}
	resp, err := f.RoundTrip(newRequest(t, context.Background(), http.MethodGet, srv.URL, nil))
	if err != nil {
		t.Fatalf("RoundTrip: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", resp.StatusCode)
	}
	time.Sleep(bound + 50*time.Millisecond) // past the bound: nothing may cancel now
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body after the bound: %v (read %d bytes)", err, len(b))
	}
	if want := "first," + strings.Repeat("x", 1<<20); string(b) != want {
		t.Errorf("body has %d bytes, want %d", len(b), len(want))
	}
	if rec.ctx.Err() != nil {
		t.Errorf("the request context ended before the body was closed: %v", rec.ctx.Err())
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("closing the body: %v", err)
	}
	// Closing the body releases the bounded request's context.
	if rec.ctx.Err() == nil {
		t.Error("the request context is still live after the body was closed")
	}
	if n := errs.Load(); n != 0 {
		t.Errorf("onError called %d times, want 0", n)
	}
}

func TestFailoverWithoutBoundPassesThrough(t *testing.T) {
	srv, _ := countingServer(t, "ok")
	rec := &ctxRecorder{next: http.DefaultTransport}
	f := &failover{next: rec, targets: []string{srv.URL}, idempotent: true, onError: func() {}}
	req := newRequest(t, context.Background(), http.MethodGet, srv.URL, nil)
	resp, err := f.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if rec.ctx != req.Context() {
		t.Error("with no bound the request's own context should be used")
	}
	if _, wrapped := resp.Body.(*cancelOnClose); wrapped {
		t.Error("with no bound the body should not be wrapped")
	}
}

func TestIdempotent(t *testing.T) {
	for method, want := range map[string]bool{
		http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true,
		http.MethodPost: false, http.MethodPut: false, http.MethodPatch: false, http.MethodDelete: false, "CONNECT": false,
	} {
		if got := idempotent(method); got != want {
			t.Errorf("idempotent(%s) = %v, want %v", method, got, want)
		}
	}
}
