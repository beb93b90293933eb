package peerproxy

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestServeMetrics(t *testing.T) {
	m := newMetrics()
	m.route("peer")
	srv, err := serveMetrics("127.0.0.1:0", m.registry)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()

	// A port in use is an error the caller sees, not a goroutine's silent failure.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := serveMetrics(l.Addr().String(), m.registry); err == nil || !strings.Contains(err.Error(), l.Addr().String()) {
		t.Errorf("serving metrics on a port in use: %v, want an error naming the address", err)
	}
}

func TestServeMetricsAnswers(t *testing.T) {
	m := newMetrics()
	m.route("peer")
	m.leasesIgnored(3, 69)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv, err := serveMetrics(addr, m.registry)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`skewcheck_peerproxy_requests_total{route="peer"} 1`,
		`skewcheck_peerproxy_peer_leases_ignored{reason="url"} 3`, `skewcheck_peerproxy_peer_leases_ignored{reason="over-cap"} 69`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, b)
		}
	}
}
