package peerproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// upgradingBackend answers every request by switching protocols and then holds the
// connection, as an exec session does; ended receives once the connection is gone.
func upgradingBackend(t *testing.T) (*httptest.Server, chan struct{}) {
	ended := make(chan struct{}, 4)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		rw.Flush()
		io.Copy(io.Discard, conn) // until the proxy lets go of it
		ended <- struct{}{}
	}))
	t.Cleanup(s.Close)
	return s, ended
}

// servingProxy is testProxy in front of localURL, serving TLS on a loopback port as Start
// serves it.
func servingProxy(t *testing.T, localURL string) (*Proxy, string) {
	p := testProxy(t, localURL, localURL)
	p.reg.localURL, p.reg.leaseClient = localURL, fake.NewClientset() // deregister finds no lease
	cert := httptest.NewTLSServer(nil)
	serving := cert.TLS.Certificates[0]
	cert.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.server = p.newServer(func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &serving, nil }, nil)
	p.cancel, p.done = func() {}, make(chan struct{})
	p.serve(l)
	return p, l.Addr().String()
}

// openExec switches protocols through the proxy and returns the client's connection.
func openExec(t *testing.T, addr string) net.Conn {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	io.WriteString(conn, "POST /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	head := make([]byte, len("HTTP/1.1 101"))
	if _, err := io.ReadFull(conn, head); err != nil || string(head) != "HTTP/1.1 101" {
		t.Fatalf("the upgrade through the proxy: %q, %v; want 101 Switching Protocols", head, err)
	}
	return conn
}

// An upgraded connection (exec, attach, port-forward, a websocket watch) is no longer
// net/http's once hijacked, and http.Server's Shutdown and Close leave it open: the proxy
// ends it itself, on both sides, when it stops, gracefully or not.
func TestStopClosesUpgradedConnections(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		backend, ended := upgradingBackend(t)
		p, addr := servingProxy(t, backend.URL)
		conn := openExec(t, addr)
		start := time.Now()
		if graceful {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			p.Shutdown(ctx)
			cancel()
		} else {
			p.Close()
		}
		conn.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, err := io.Copy(io.Discard, conn) // until the proxy closes it
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("graceful %v: the client's upgraded connection is still open 3 s after the proxy stopped", graceful)
			continue
		}
		select {
		case <-ended:
		case <-time.After(3 * time.Second):
			t.Errorf("graceful %v: the apiserver's side of the upgraded connection is still open 3 s after the proxy stopped", graceful)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("graceful %v: stopping took %v with one exec session open, want it closed at once", graceful, d.Round(time.Millisecond))
		}
	}
}
