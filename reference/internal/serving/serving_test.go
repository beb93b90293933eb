package serving

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The HTTP/2 SETTINGS parameters a bounded server announces (RFC 9113 section 6.5.2).
const (
	settingsMaxConcurrentStreams = 0x3
	settingsInitialWindowSize    = 0x4
	settingsMaxFrameSize         = 0x5
)

func boundedServer(t *testing.T) *httptest.Server {
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	Bounded(s.Config)
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// A bounded server tells an HTTP/2 client kube-apiserver's limits as its first frames:
// its streams, its frame size, each stream's window and the connection's.
func TestBoundedHTTP2Settings(t *testing.T) {
	s := boundedServer(t)
	conn, err := tls.Dial("tcp", s.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if p := conn.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Fatalf("negotiated %q, want h2", p)
	}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	// The client's preface, and its SETTINGS frame (empty).
	io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
	r := bufio.NewReader(conn)
	settings, connWindow := map[uint16]uint32{}, uint32(0)
	for connWindow == 0 { // the server's SETTINGS come first, its connection's WINDOW_UPDATE after
		head := make([]byte, 9)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatalf("reading the server's frames: %v (settings so far %v)", err, settings)
		}
		payload := make([]byte, int(head[0])<<16|int(head[1])<<8|int(head[2]))
		if _, err := io.ReadFull(r, payload); err != nil {
			t.Fatal(err)
		}
		switch kind, flags, stream := head[3], head[4], binary.BigEndian.Uint32(head[5:])&0x7fffffff; {
		case kind == 0x4 && flags&0x1 == 0: // SETTINGS, not an ACK
			for i := 0; i+6 <= len(payload); i += 6 {
				settings[binary.BigEndian.Uint16(payload[i:])] = binary.BigEndian.Uint32(payload[i+2:])
			}
		case kind == 0x8 && stream == 0: // WINDOW_UPDATE of the connection
			connWindow = 65535 + binary.BigEndian.Uint32(payload)&0x7fffffff
		}
	}
	for id, want := range map[uint16]uint32{settingsMaxConcurrentStreams: 100, settingsInitialWindowSize: 256 << 10, settingsMaxFrameSize: 256 << 10} {
		if settings[id] != want {
			t.Errorf("SETTINGS parameter %#x: %d, want %d (all: %v)", id, settings[id], want, settings)
		}
	}
	if want := uint32(100 * 256 << 10); connWindow != want {
		t.Errorf("the connection's window: %d, want %d", connWindow, want)
	}
}

// A request whose headers pass kube-apiserver's 1 MiB is refused with 431, as
// kube-apiserver refuses it; one under it is served. (Over HTTP/2 the client itself
// refuses to send it: the server's SETTINGS say how much it takes.)
func TestBoundedHeaderBytes(t *testing.T) {
	s := boundedServer(t)
	tr := s.Client().Transport.(*http.Transport).Clone()
	tr.ForceAttemptHTTP2, tr.TLSClientConfig.NextProtos = false, []string{"http/1.1"}
	defer tr.CloseIdleConnections()
	for size, want := range map[int]int{512 << 10: http.StatusOK, 1<<20 + 64<<10: http.StatusRequestHeaderFieldsTooLarge} {
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		req.Header.Set("X-Big", strings.Repeat("x", size))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("a header of %d bytes: %v", size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.ProtoMajor != 1 {
			t.Errorf("a header of %d bytes: %d over %s, want %d over HTTP/1.1", size, resp.StatusCode, resp.Proto, want)
		}
	}
}
