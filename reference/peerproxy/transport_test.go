package peerproxy

import (
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// tlsPeer is a stand-in apiserver speaking TLS and HTTP/2, as real ones do, behind a relay
// the test can freeze; handler answers its requests.
type tlsPeer struct {
	srv   *httptest.Server
	relay *relay
	cas   *x509.CertPool
}

func newTLSPeer(t *testing.T, handler http.HandlerFunc) *tlsPeer {
	t.Helper()
	srv := httptest.NewUnstartedServer(handler)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cas := x509.NewCertPool()
	cas.AddCert(srv.Certificate())
	return &tlsPeer{srv: srv, relay: newRelay(t, srv.Listener.Addr().String()), cas: cas}
}

// URL is the peer as the proxy reaches it: through the relay.
func (p *tlsPeer) URL() string { return "https://" + p.relay.addr() }

// relay forwards TCP connections to a backend until frozen; frozen, it holds every byte in
// both directions while keeping the connections open, as a SIGSTOPped apiserver or a
// black-holed path does.
type relay struct {
	l      net.Listener
	mu     sync.Mutex
	frozen chan struct{} // closed while thawed
}

func newRelay(t *testing.T, backend string) *relay {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{l: l, frozen: make(chan struct{})}
	close(r.frozen)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", backend)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); b.Close() })
			go r.pipe(c, b)
			go r.pipe(b, c)
		}
	}()
	return r
}

func (r *relay) addr() string { return r.l.Addr().String() }

func (r *relay) freeze() {
	r.mu.Lock()
	r.frozen = make(chan struct{})
	r.mu.Unlock()
}

func (r *relay) gate() chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frozen
}

func (r *relay) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		<-r.gate() // frozen: the bytes go nowhere and nothing answers
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// tlsProxy is testProxy reaching its peer with the real transports, verifying peer's
// certificate (httptest's is for example.com).
func tlsProxy(t *testing.T, peer *tlsPeer, timeout time.Duration) *Proxy {
	t.Helper()
	p := testProxy(t, refusedURL(t), peer.URL())
	p.cfg.PeerTimeout = timeout
	p.identity = transport(peer.cas, "example.com", nil, timeout, false)
	p.identityUpgrade = transport(peer.cas, "example.com", nil, timeout, true)
	p.reg.peers = map[string]view{"peer": {id: "peer", url: peer.URL(), served: set("batch/v1/jobs")}}
	return p
}

func get(p *Proxy, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Authorization", "Bearer good")
	w := httptest.NewRecorder()
	p.ServeHTTP(w, r)
	return w
}

// A healthy peer that takes several times the peer timeout to answer (a long LIST, a slow
// write) is waited for: the bound is on liveness, not on the answer.
func TestServeHTTPWaitsForASlowHealthyPeer(t *testing.T) {
	const timeout = 300 * time.Millisecond
	peer := newTLSPeer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(4 * timeout)
		io.WriteString(w, "slow but healthy")
	})
	p := tlsProxy(t, peer, timeout)
	start := time.Now()
	w := get(p, "/apis/batch/v1/jobs")
	if w.Code != http.StatusOK || w.Body.String() != "slow but healthy" {
		t.Fatalf("answer %d %q after %v, want the peer's 200", w.Code, w.Body, time.Since(start))
	}
}

// A peer that freezes while the proxy holds a warm HTTP/2 connection to it is given up
// within about 1.5 times the peer timeout: the connection's unanswered ping drops it, and the
// answer is 503.
func TestServeHTTPFrozenPeerIs503WithinTheBound(t *testing.T) {
	const timeout = 400 * time.Millisecond
	peer := newTLSPeer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	p := tlsProxy(t, peer, timeout)
	if w := get(p, "/apis/batch/v1/jobs"); w.Code != http.StatusOK {
		t.Fatalf("warming the connection: %d %q", w.Code, w.Body)
	}
	peer.relay.freeze()
	start := time.Now()
	w := get(p, "/apis/batch/v1/jobs")
	took := time.Since(start)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("answer %d %q, want 503", w.Code, w.Body)
	}
	// Up to timeout/2 of silence before the ping, timeout for its answer, and slack for
	// a loaded machine.
	if took > 3*timeout {
		t.Errorf("503 after %v, want within about %v", took, timeout)
	}
	// A new connection to the frozen peer fails in the TLS handshake, within the bound too.
	start = time.Now()
	if w := get(p, "/apis/batch/v1/jobs"); w.Code != http.StatusServiceUnavailable || time.Since(start) > 3*timeout {
		t.Errorf("on a new connection: %d after %v, want 503 within about %v", w.Code, time.Since(start), timeout)
	}
}

// An SPDY upgrade (exec, attach, port-forward) reaches an HTTP/2-capable apiserver over
// HTTP/1.1 and switches protocols; over HTTP/2 Go refuses it and the client got 503.
func TestServeHTTPUpgradesOverHTTP1(t *testing.T) {
	protos := make(chan string, 1)
	peer := newTLSPeer(t, func(w http.ResponseWriter, r *http.Request) {
		protos <- r.Proto + " " + r.Header.Get("X-Remote-User")
		if r.Header.Get("Upgrade") != "SPDY/3.1" {
			http.Error(w, "want an SPDY upgrade", http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\nhello")
		rw.Flush()
	})
	p := tlsProxy(t, peer, time.Second)
	front := httptest.NewServer(p)
	defer front.Close()
	conn, err := net.Dial("tcp", front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /apis/batch/v1/namespaces/ns/jobs/j/exec HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\n"+
		"Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(b), "HTTP/1.1 101") || !strings.HasSuffix(string(b), "hello") {
		t.Fatalf("the client got %q, want 101 Switching Protocols and the peer's stream", b)
	}
	if got := <-protos; got != "HTTP/1.1 bob" {
		t.Errorf("the peer saw %q, want HTTP/1.1 from bob", got)
	}
}
