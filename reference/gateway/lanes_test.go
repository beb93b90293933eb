package gateway

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// h2Server is a TLS server that speaks HTTP/2 with kube-apiserver's stream limit (100)
// and counts its open connections, the peak included. Its handler takes 50 ms, so 200
// clients keep about 200 requests in flight; a watch (?watch=true) lasts until the client
// goes; every request records the protocol it came in.
type h2Server struct {
	*httptest.Server
	open, peak atomic.Int64
	mu         sync.Mutex
	protos     map[string]string // path -> protocol

	// gathered is closed once hold requests are in flight at once (holdFor).
	hold     int64
	inFlight atomic.Int64
	gathered chan struct{}
	once     sync.Once
}

func newH2Server(t *testing.T) *h2Server {
	s := &h2Server{protos: map[string]string{}, gathered: make(chan struct{})}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.protos[r.URL.Path] = r.Proto
		s.mu.Unlock()
		if r.URL.Query().Get("watch") == "true" {
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		s.holdUntilGathered()
		time.Sleep(50 * time.Millisecond)
	}))
	s.EnableHTTP2 = true
	s.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 100}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			n := s.open.Add(1)
			for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
			}
		case http.StateClosed, http.StateHijacked:
			s.open.Add(-1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// holdFor makes the first requests wait until n are in flight at once (or 10 s pass): on a
// busy machine 200 client goroutines may never have more than 100 requests out together
// by themselves, and a storm needs a full connection.
func (s *h2Server) holdFor(n int64) { s.hold = n }

func (s *h2Server) holdUntilGathered() {
	if s.hold == 0 {
		return
	}
	if s.inFlight.Add(1) >= s.hold {
		s.once.Do(func() { close(s.gathered) })
	}
	defer s.inFlight.Add(-1)
	select {
	case <-s.gathered:
	case <-time.After(10 * time.Second):
	}
}

// load sends 10 GETs from each of 200 clients at once through rt.
func load(t *testing.T, rt http.RoundTripper, url string) {
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				req, _ := http.NewRequest("GET", url+"/api/v1/namespaces/default/configmaps/x", nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
}

// TestGoTransportStorms shows the cause the lanes exist for: Go's Transport, with a
// server that allows 100 streams per connection, dials a connection per request that
// finds the connection full. The server holds the first requests until 150 are in flight,
// so the connection fills whatever the machine's load (under make test's load, without the
// hold, 200 clients once kept only 13 connections' worth in flight and the test failed).
func TestGoTransportStorms(t *testing.T) {
	s := newH2Server(t)
	s.holdFor(150) // more than one connection's 100 streams
	tr := s.Client().Transport.(*http.Transport)
	tr.ForceAttemptHTTP2 = true
	load(t, tr, s.URL)
	if s.peak.Load() < 20 {
		t.Errorf("Go's Transport held at most %d connections under 200 clients; the lanes exist because it opens dozens (measured 101)", s.peak.Load())
	}
	t.Logf("Go's Transport: %d connections at the peak, %d after", s.peak.Load(), s.open.Load())
}

// TestLanesConverge: through the connector, 200 clients share at most 2 connections (each
// carries 100 streams) and every request is answered.
func TestLanesConverge(t *testing.T) {
	s := newH2Server(t)
	c := newConnector("test", resolvedClientConfig{insecure: true}, 2*time.Second)
	defer c.closeIdle()
	load(t, c.rt, s.URL)
	if p := s.peak.Load(); p > 2 {
		t.Errorf("the connector held %d connections to one server under 200 clients; want at most 2 (100 streams each)", p)
	}
	t.Logf("connector: %d connections at the peak, %d lanes", s.peak.Load(), c.lanesTo(strings.TrimPrefix(s.URL, "https://")).short.size())
}

// TestWatchesDoNotBlockShortRequests: 150 watches hold 150 streams, on lanes of their own;
// a short request is still answered at once, and the watches took 2 connections.
func TestWatchesDoNotBlockShortRequests(t *testing.T) {
	s := newH2Server(t)
	c := newConnector("test", resolvedClientConfig{insecure: true}, 2*time.Second)
	defer c.closeIdle()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bodies []func() error
	for range 150 {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/api/v1/configmaps?watch=true", nil)
		resp, err := c.rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body.Close)
	}
	start := time.Now()
	req, _ := http.NewRequest("GET", s.URL+"/api/v1/namespaces/default/configmaps/x", nil)
	resp, err := c.rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a short request took %v with 150 watches open", d)
	}
	if n := s.open.Load(); n != 3 {
		t.Errorf("%d connections with 150 watches and one short request; want 3 (2 watch lanes, 1 short)", n)
	}
	for _, close := range bodies {
		close()
	}
}

// TestUpgradesGoOverHTTP1: an upgrade request (SPDY, as kubectl exec sends it) reaches
// the server over HTTP/1.1, where the protocol switch exists; others over HTTP/2. The
// upgrade's connection, refused here (the server answers 200 without switching), is not
// kept: only the HTTP/2 connection stays.
func TestUpgradesGoOverHTTP1(t *testing.T) {
	s := newH2Server(t)
	c := newConnector("test", resolvedClientConfig{insecure: true}, 2*time.Second)
	defer c.closeIdle()
	for _, r := range []struct {
		path    string
		upgrade bool
	}{{"/api/v1/namespaces/default/pods/p/exec", true}, {"/api/v1/namespaces/default/pods/p", false}} {
		req, _ := http.NewRequest("POST", s.URL+r.path, nil)
		if r.upgrade {
			req.Header.Set("Connection", "Upgrade")
			req.Header.Set("Upgrade", "SPDY/3.1")
		}
		resp, err := c.rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", r.path, err)
		}
		resp.Body.Close()
	}
	for deadline := time.Now().Add(2 * time.Second); s.open.Load() > 1 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.open.Load(); n != 1 {
		t.Errorf("%d connections open after a refused upgrade and an ordinary request; want 1 (the HTTP/2 one)", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got := s.protos["/api/v1/namespaces/default/pods/p/exec"]; got != "HTTP/1.1" {
		t.Errorf("an SPDY upgrade reached the server over %s, want HTTP/1.1", got)
	}
	if got := s.protos["/api/v1/namespaces/default/pods/p"]; got != "HTTP/2.0" {
		t.Errorf("an ordinary request reached the server over %s, want HTTP/2.0", got)
	}
}
