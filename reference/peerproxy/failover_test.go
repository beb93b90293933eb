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
