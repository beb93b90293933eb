package peerproxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"time"
)

// transport talks TLS to apiservers. timeout bounds what a server that is gone (frozen,
// crashed, cut off) would make the proxy wait for, and nothing else:
//   - dialing and the TLS handshake: a frozen process's kernel still accepts TCP, but the
//     handshake never ends;
//   - on an open HTTP/2 connection, a ping is sent after timeout/2 without a frame and the
//     connection is dropped if it goes unanswered for timeout: a frozen or black-holed
//     peer fails every request on it within about 1.5 timeout, while a healthy server
//     answers pings however long it takes to answer the request itself. The answer gets
//     the whole timeout because dropping the connection fails every request on it, writes
//     the server may have applied included: a busy server on a loaded machine (1000
//     clients on one connection, or a 2-core machine at load 30) took more than a second
//     to answer a ping, and with timeout/2 for it a healthy server's POST got 503 "http2:
//     client connection lost".
//
// Time to response headers is not bounded: a slow but healthy LIST or write must not be cut
// (a write could be applied and still answered 503).
//
// An upgrade transport speaks HTTP/1.1 only, since Go cannot switch protocols over HTTP/2,
// and dials a fresh connection for every request, so a dead server is found by the bounded
// handshake rather than by writing to a stale connection that no ping watches.
//
// A client certificate is presented through cert.get, read again from disk when rotated
// (certs.go), so a new connection carries the current one.
func transport(cas *x509.CertPool, serverName string, cert *keyPair, timeout time.Duration, upgrade bool) *http.Transport {
	tc := &tls.Config{RootCAs: cas, ServerName: serverName}
	if cert != nil {
		tc.GetClientCertificate = cert.get
	}
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tc,
		TLSHandshakeTimeout: timeout,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
	}
	if upgrade {
		tc.NextProtos = []string{"http/1.1"}
		t.DisableKeepAlives = true
		return t
	}
	t.ForceAttemptHTTP2 = true
	t.HTTP2 = &http.HTTP2Config{SendPingTimeout: timeout / 2, PingTimeout: timeout}
	return t
}

// httpsOnly refuses to send a request anywhere but over TLS. Peers are found through
// Leases, which anyone allowed to write them in kube-system can point at any URL: an
// http:// one would receive identity headers and bodies in plaintext. Over https the
// transport verifies the server's certificate (the cluster CA, ServerName), so identity
// headers only ever reach an apiserver the cluster vouches for.
type httpsOnly struct{ next http.RoundTripper }

func (h httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return nil, fmt.Errorf("refusing to send a request to %s: apiservers and peers are reached over verified TLS only (is its lease's URL https?)", req.URL.Redacted())
	}
	return h.next.RoundTrip(req)
}
