package gateway

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// connector is how the gateway reaches the servers of one cluster, as itself. Ordinary
// requests share a few HTTP/2 connections per server (lanes.go): short ones on up to
// maxShortLanes, long-running ones (watches, logs) on lanes of their own, so that watches,
// which hold a stream for minutes, never make a short request wait for a stream. Upgrade
// requests (exec, attach, port-forward over SPDY or websockets) go over HTTP/1.1, each on
// a connection of its own: the protocol switch exists only in HTTP/1.1, and Go's HTTP/2
// client refuses to send the Connection and Upgrade headers (kube-apiserver implements no
// HTTP/2 extended CONNECT).
//
// A frozen server is found by bounds on what cannot take long on a live one: dialing,
// the TLS handshake, and HTTP/2 pings (a connection that has received nothing for
// timeout is pinged; no answer within timeout closes it, failing its streams). The
// response itself is not bounded, so a long LIST from a live server still succeeds.
type connector struct {
	key     string // the cluster name and a fingerprint of the client config
	tls     *tls.Config
	timeout time.Duration
	token   string
	upgrade *http.Transport
	rt      http.RoundTripper // the connector, with the bearer token if the gateway uses one

	mu      sync.Mutex
	servers map[string]*serverLanes // by host:port
	// perClient holds the ConnectionPerClient defect's transports, by client address;
	// shared is the GoTransport defect's one transport.
	perClient map[string]*http.Transport
	shared    *http.Transport
}

// Lanes per server: short requests converge on at most maxShortLanes connections (with
// kube-apiserver's 100 streams each, 400 short requests at once before any waits, which
// is also kube-apiserver's default --max-requests-inflight: it would refuse more with
// 429). Beyond that, further requests wait for a stream, each client within its fair
// share and for a bounded time (fairshare.go). Long-running ones get up to maxLongLanes
// (6400 watches), shared the same way.
const (
	maxShortLanes = 4
	maxLongLanes  = 64
)

// serverLanes are the lanes to one server.
type serverLanes struct {
	short, long *laneSet
}

// resolvedClientConfig is a ClientConfig with its files read.
type resolvedClientConfig struct {
	ca, cert, key []byte
	token         string
	serverName    string
	insecure      bool
}

func (r resolvedClientConfig) fingerprint() string {
	h := sha256.New()
	for _, b := range [][]byte{r.ca, r.cert, r.key, []byte(r.token), []byte(r.serverName), fmt.Appendf(nil, "%v", r.insecure)} {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// pemFrom returns inline data, or the file's contents (relative to dir).
func pemFrom(data []byte, file, dir string) ([]byte, error) {
	if len(data) > 0 || file == "" {
		return data, nil
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return os.ReadFile(file)
}

func resolveClientConfig(c gwapi.ClientConfig, dir string) (resolvedClientConfig, []Problem) {
	r := resolvedClientConfig{token: c.BearerToken, serverName: c.ServerName, insecure: c.Insecure}
	var problems []Problem
	read := func(field string, data []byte, file string) []byte {
		b, err := pemFrom(data, file, dir)
		if err != nil {
			problems = append(problems, Problem{Field: field, Message: err.Error() + "; give a readable PEM file (relative paths are relative to the document's directory)"})
		}
		return b
	}
	r.ca = read("spec.clientConfig.caFile", c.CAData, c.CAFile)
	r.cert = read("spec.clientConfig.certFile", c.CertData, c.CertFile)
	r.key = read("spec.clientConfig.keyFile", c.KeyData, c.KeyFile)
	if len(problems) > 0 {
		return r, problems
	}
	if len(r.ca) > 0 && !x509.NewCertPool().AppendCertsFromPEM(r.ca) {
		problems = append(problems, Problem{Field: "spec.clientConfig.caData", Message: "holds no PEM certificate; give the CA that signs the apiservers' serving certificates"})
	}
	if len(r.cert) > 0 {
		if _, err := tls.X509KeyPair(r.cert, r.key); err != nil {
			problems = append(problems, Problem{Field: "spec.clientConfig.certData", Message: "with keyData is not a usable client certificate: " + err.Error()})
		}
	}
	return r, problems
}

// newConnector builds the transports. Resolved configs were checked by resolveClientConfig.
func newConnector(key string, c resolvedClientConfig, timeout time.Duration) *connector {
	tc := &tls.Config{ServerName: c.serverName, InsecureSkipVerify: c.insecure}
	if len(c.ca) > 0 {
		tc.RootCAs = x509.NewCertPool()
		tc.RootCAs.AppendCertsFromPEM(c.ca)
	}
	if len(c.cert) > 0 {
		cert, _ := tls.X509KeyPair(c.cert, c.key)
		tc.Certificates = []tls.Certificate{cert}
	}
	h1 := tc.Clone()
	h1.NextProtos = []string{"http/1.1"}
	conn := &connector{key: key, tls: tc, timeout: timeout, token: c.token, servers: map[string]*serverLanes{}, perClient: map[string]*http.Transport{},
		upgrade: &http.Transport{
			DialContext:         dialer(timeout).DialContext,
			TLSClientConfig:     h1,
			TLSHandshakeTimeout: timeout,
			// An empty map switches HTTP/2 off: this transport carries upgrades only.
			TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
			// A connection that carried an upgrade belongs to it; one whose upgrade was
			// refused (403, 404) is not kept idle either: an upgrade is one connection.
			DisableKeepAlives: true,
		}}
	conn.rt = conn
	if c.token != "" {
		conn.rt = &bearer{token: c.token, next: conn}
	}
	return conn
}

func dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
}

// lane is one HTTP/2 transport holding at most one connection per server, which queues
// requests beyond the server's stream limit instead of dialing another.
func (c *connector) lane() *http.Transport {
	return &http.Transport{
		DialContext:         dialer(c.timeout).DialContext,
		TLSClientConfig:     c.tls.Clone(),
		TLSHandshakeTimeout: c.timeout,
		ForceAttemptHTTP2:   true,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     90 * time.Second,
		HTTP2: &http.HTTP2Config{
			StrictMaxConcurrentRequests: true,
			SendPingTimeout:             c.timeout,
			PingTimeout:                 c.timeout,
			WriteByteTimeout:            2 * c.timeout,
		},
	}
}

// RoundTrip sends an upgrade over HTTP/1.1 and anything else on the server's lanes.
func (c *connector) RoundTrip(req *http.Request) (*http.Response, error) {
	if isUpgrade(req.Header) {
		return c.upgrade.RoundTrip(req)
	}
	s := c.lanesTo(req.URL.Host)
	if parseRequestInfo(req).longRunning() {
		return s.long.RoundTrip(req)
	}
	return s.short.RoundTrip(req)
}

func (c *connector) lanesTo(host string) *serverLanes {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.servers[host]
	if s == nil {
		s = &serverLanes{short: newLaneSet(c.lane, maxShortLanes), long: newLaneSet(c.lane, maxLongLanes)}
		c.servers[host] = s
	}
	return s
}

// isUpgrade: the request asks to switch protocols (Connection: Upgrade).
func isUpgrade(h http.Header) bool {
	for _, v := range h.Values("Connection") {
		for _, token := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return h.Get("Upgrade") != ""
			}
		}
	}
	return false
}

// perClientTransport is the ConnectionPerClient defect: a Transport of its own for each
// client connection (by the client's address), as Go's defaults make it.
func (c *connector) perClientTransport(client string) http.RoundTripper {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.perClient[client]
	if t == nil {
		t = c.goTransport()
		c.perClient[client] = t
	}
	return c.withToken(t)
}

// sharedTransport is the GoTransport defect: one Transport for every request.
func (c *connector) sharedTransport() http.RoundTripper {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shared == nil {
		c.shared = c.goTransport()
	}
	return c.withToken(c.shared)
}

// goTransport is an HTTP/2 Transport with Go's defaults (the defects' transports).
func (c *connector) goTransport() *http.Transport {
	return &http.Transport{DialContext: dialer(c.timeout).DialContext, TLSClientConfig: c.tls.Clone(),
		TLSHandshakeTimeout: c.timeout, ForceAttemptHTTP2: true, IdleConnTimeout: 90 * time.Second}
}

func (c *connector) withToken(t http.RoundTripper) http.RoundTripper {
	if c.token != "" {
		return &bearer{token: c.token, next: t}
	}
	return t
}

// closeIdle closes every connection nothing is using, when the connector is dropped.
func (c *connector) closeIdle() {
	c.upgrade.CloseIdleConnections()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.servers {
		s.short.closeIdle()
		s.long.closeIdle()
	}
	for _, t := range c.perClient {
		t.CloseIdleConnections()
	}
	if c.shared != nil {
		c.shared.CloseIdleConnections()
	}
}

// bearer adds the gateway's own bearer token to requests the gateway makes as itself.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
