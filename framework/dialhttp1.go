package framework

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
)

// DialHTTP1 opens a TLS connection to host that speaks HTTP/1.1, for a test that writes
// its requests byte by byte (a slow body, a slow reader): dial is the client's own dialer
// (a rest.Config's Dial) or nil for a plain TCP dial, base the client's TLS settings, the
// server name host's unless base names one, and tune, when given, adjusts the TCP
// connection before the handshake (a small receive buffer).
func DialHTTP1(ctx context.Context, dial func(ctx context.Context, network, addr string) (net.Conn, error), host string, base *tls.Config, tune func(*net.TCPConn)) (net.Conn, error) {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	raw, err := dial(ctx, "tcp", host)
	if err != nil {
		return nil, err
	}
	if tcp, ok := raw.(*net.TCPConn); ok && tune != nil {
		tune(tcp)
	}
	cfg := base.Clone()
	cfg.NextProtos = []string{"http/1.1"}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(host)
	}
	conn := tls.Client(raw, cfg)
	if err := conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", host, err)
	}
	return conn, nil
}
