package gateway

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// An exec session whose apiserver froze (no byte either way) is ended after
// UpgradeIdleTimeout, on both sides; one that moves bytes is not, however long it lasts.
func TestSilentUpgradeIsClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	ended := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		rw.Flush()
		io.Copy(io.Discard, conn) // until the gateway lets go of it
		ended <- struct{}{}
	}))
	t.Cleanup(up.Close)
	g := testGateway(t, Defects{}, up.URL)
	g.cfg.UpgradeIdleTimeout = idle
	front := httptest.NewServer(g)
	t.Cleanup(front.Close)

	conn, err := net.Dial("tcp", front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	io.WriteString(conn, "POST /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: gw.test\r\nAuthorization: Bearer bob\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("the upgrade through the gateway: %v, %v; want 101 Switching Protocols", resp, err)
	}

	// The client types for three idle periods: the session stays.
	// The silence is timed from before the last write: the byte may pass the proxy, which
	// times it, before a time read after the write returned (a make test run saw the
	// close 299.45 ms after such a reading, 2026-12-02).
	var silent time.Time
	for range 12 {
		time.Sleep(idle / 4)
		silent = time.Now()
		if _, err := io.WriteString(conn, "x"); err != nil {
			t.Fatalf("a session moving bytes was closed: %v", err)
		}
	}
	// Then nothing moves either way.
	conn.SetReadDeadline(time.Now().Add(10 * idle))
	_, err = io.Copy(io.Discard, br)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the client's side of a silent exec session is still open %v after its last byte, want closed after %v", 10*idle, idle)
	}
	if d := time.Since(silent); d < idle {
		t.Errorf("closed %v after the last byte, before the idle timeout %v", d, idle)
	}
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Error("the apiserver's side of the silent exec session is still open")
	}
}
