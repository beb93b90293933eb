package upgrade

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// switched is a 101 whose body is the proxy's end of a pipe to the server; the server's
// end is returned too.
func switched(t *testing.T) (*http.Response, net.Conn) {
	proxySide, serverSide := net.Pipe()
	t.Cleanup(func() { proxySide.Close(); serverSide.Close() })
	return &http.Response{StatusCode: http.StatusSwitchingProtocols, Body: proxySide}, serverSide
}

// closedWithin reports whether the server sees its connection closed within d.
func closedWithin(server net.Conn, d time.Duration) bool {
	server.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, server)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

// Bytes either way keep a session open: the client's, written to the server, and the
// server's, read for the client. Silence either way closes it.
func TestCloseWhenIdle(t *testing.T) {
	const idle = 200 * time.Millisecond
	for _, dir := range []string{"from the client", "to the client"} {
		resp, server := switched(t)
		CloseWhenIdle(resp, idle)
		conn := resp.Body.(io.ReadWriter)
		go func() { // the other end of each direction
			if dir == "from the client" {
				io.Copy(io.Discard, server)
			} else {
				io.Copy(io.Discard, conn)
			}
		}()
		for range 8 {
			time.Sleep(idle / 4)
			var err error
			if dir == "from the client" {
				_, err = conn.Write([]byte("x"))
			} else {
				_, err = server.Write([]byte("x"))
			}
			if err != nil {
				t.Fatalf("bytes %s every %v: closed after %v of them: %v", dir, idle/4, 2*idle, err)
			}
		}
	}

	resp, server := switched(t)
	start := time.Now()
	CloseWhenIdle(resp, idle)
	if !closedWithin(server, 10*idle) {
		t.Fatalf("a silent session is open %v later, want it closed after %v", 10*idle, idle)
	}
	if d := time.Since(start); d < idle {
		t.Errorf("a silent session closed after %v, before %v", d, idle)
	}
}

// Only a protocol switch is watched, and a bound of zero or less is none.
func TestCloseWhenIdleLeavesOthers(t *testing.T) {
	resp, server := switched(t)
	resp.StatusCode = http.StatusForbidden
	CloseWhenIdle(resp, time.Millisecond)
	if _, ok := resp.Body.(*watchedConn); ok || closedWithin(server, 100*time.Millisecond) {
		t.Error("a 403's body was watched and closed")
	}
	for _, d := range []time.Duration{0, -1} {
		resp, server := switched(t)
		CloseWhenIdle(resp, d)
		if _, ok := resp.Body.(*watchedConn); ok || closedWithin(server, 100*time.Millisecond) {
			t.Errorf("an idle bound of %v closed a silent session", d)
		}
	}
}
