// Package peerproxy is skewcheck's reference mixed version proxy: a sidecar in front of one
// kube-apiserver that forwards a request for a resource its apiserver does not serve to a
// peer apiserver that does, and merges the servers' discovery. It passes the mvp and
// discovery suites with no help from the apiservers (their gate may be off or missing), and
// improves on upstream where upstream is weak:
//   - identity survives upgrade requests (exec, attach, port-forward, websockets);
//   - the time to 503 for a frozen or unreachable peer is bounded (PeerTimeout, 5 s),
//     while a healthy peer that is slow to answer is waited for;
//   - upgrades (exec, attach, port-forward over SPDY or websockets) go over HTTP/1.1;
//   - an idempotent request is retried on another capable peer before answering 503;
//   - the 503 is always a JSON Status with Retry-After.
package peerproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
	"github.com/skewcheck/skewcheck/reference/internal/serving"
	"github.com/skewcheck/skewcheck/reference/internal/upgrade"
)

// Config is everything a proxy needs. Paths are PEM files.
type Config struct {
	// ID names this proxy among its peers (its lease); unique per fronted apiserver.
	ID string
	// Listen is where clients connect, e.g. 127.77.1.31:6443.
	Listen string
	// ServingCert and ServingKey: the certificate clients see (SANs for Listen's address).
	ServingCert, ServingKey string
	// ClientCA verifies client certificates, as the apiservers' --client-ca-file does.
	ClientCA string
	// APIServer is the fronted apiserver's URL; ServerCA verifies it and the peers.
	APIServer string
	// AdvertiseURL is how peers reach the fronted apiserver, if not at APIServer (a
	// forwarder on the peer path, say). Default APIServer.
	AdvertiseURL string
	// ServerName is the name every apiserver's serving certificate is verified against,
	// whatever address it is reached at (as upstream verifies peers). Default
	// kubernetes.default.svc.
	ServerName string
	ServerCA   string
	// FrontProxyCert and FrontProxyKey: the client certificate the apiservers trust for
	// X-Remote-* identity headers (their --requestheader-client-ca-file and allowed names).
	FrontProxyCert, FrontProxyKey string
	// ControlCert and ControlKey: the proxy's own identity for reading discovery, writing
	// its lease and reviewing tokens (needs leases in kube-system and tokenreviews, and
	// to list customresourcedefinitions and apiservices: extensions.go).
	ControlCert, ControlKey string
	// PeerTimeout bounds how long an apiserver may stay silent before it counts as gone:
	// connecting, the TLS handshake, and the answer to a liveness ping on an open HTTP/2
	// connection. It is the time to 503 when a peer is frozen or cut off; a healthy server
	// that is slow to answer (a long LIST, a slow write) is waited for. Default
	// DefaultPeerTimeout.
	PeerTimeout time.Duration
	// SyncEvery is how often local and peer discovery and leases are re-read. Default 1 s.
	SyncEvery time.Duration
	// UpgradeIdleTimeout ends an upgraded session (exec, attach, port-forward, a websocket)
	// once no byte has passed either way for this long, as the container runtime's
	// streaming server ends an idle stream (reference/internal/upgrade says where upstream
	// bounds it). Default upgrade.DefaultIdleTimeout (4 h); negative: no bound.
	UpgradeIdleTimeout time.Duration
	// LeaseDuration is how long the proxy's lease outlives its last renewal, and so how
	// long peers answer 503 (not 404) for what its apiserver served after a crash.
	// Default DefaultLeaseDuration (an hour, as upstream's identity leases).
	LeaseDuration time.Duration
	// MetricsListen, if set, serves Prometheus metrics at /metrics there.
	MetricsListen string
	// Flaw makes the proxy deliberately wrong, to show the suites catch it (flaw.go).
	Flaw Flaw
}

// Proxy is a running reference proxy.
type Proxy struct {
	cfg     Config
	reg     *registry
	auth    *authn.Authenticator
	metrics *metrics
	server  *http.Server
	msrv    *http.Server
	// identity presents the front-proxy certificate, for authenticated users; anon presents
	// none, so an unauthenticated client stays anonymous. Each has an HTTP/1.1 twin for
	// upgrade requests (transport.go).
	identity, identityUpgrade http.RoundTripper
	anon, anonUpgrade         http.RoundTripper
	// asItself presents the control certificate: only FlawForwardAsItself uses it, with
	// its HTTP/1.1 twin for upgrades, so that an upgrade fails for whom it runs as and not
	// because it cannot switch protocols.
	asItself, asItselfUpgrade http.RoundTripper
	cancel                    context.CancelFunc
	done                      chan struct{}
	// conns are the client connections, upgraded ones included, which Shutdown and Close
	// end (upgraded.go).
	conns *connTracker
	// turn is the lock FlawBodiesInTurn reads every request body under.
	turn sync.Mutex
	// breaker is when each peer last failed, which FlawCircuitBreaker acts on.
	breaker breaker
}

// DefaultPeerTimeout is Config.PeerTimeout's default: a frozen peer's 503 comes within
// 5 s on a new connection and 7.5 s on a warm one, and a healthy server has 5 s to answer
// a liveness ping, which a busy one on a loaded machine needed (transport.go).
const DefaultPeerTimeout = 5 * time.Second

// Start checks the configuration, registers the proxy and starts serving.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	if cfg.PeerTimeout == 0 {
		cfg.PeerTimeout = DefaultPeerTimeout
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = time.Second
	}
	if cfg.UpgradeIdleTimeout == 0 {
		cfg.UpgradeIdleTimeout = upgrade.DefaultIdleTimeout
	}
	if cfg.ServerName == "" {
		cfg.ServerName = "kubernetes.default.svc"
	}
	if cfg.ID == "" || cfg.Listen == "" || cfg.APIServer == "" {
		return nil, errors.New("peerproxy: ID, Listen and APIServer are required")
	}
	serverCAs, err := loadPool(cfg.ServerCA)
	if err != nil {
		return nil, err
	}
	clientCAs, err := loadPool(cfg.ClientCA)
	if err != nil {
		return nil, err
	}
	frontProxy, err := loadKeyPair(cfg.FrontProxyCert, cfg.FrontProxyKey)
	if err != nil {
		return nil, fmt.Errorf("peerproxy: front-proxy client certificate: %w", err)
	}
	servingPair, err := loadKeyPair(cfg.ServingCert, cfg.ServingKey)
	if err != nil {
		return nil, fmt.Errorf("peerproxy: serving certificate: %w", err)
	}
	c, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	forwardTimeout := cfg.Flaw.peerTimeout(cfg.PeerTimeout)
	p := &Proxy{cfg: cfg, auth: newAuthenticator(c.reviews), metrics: newMetrics(), done: make(chan struct{}),
		identity:        httpsOnly{transport(serverCAs, cfg.ServerName, frontProxy, forwardTimeout, false)},
		anon:            httpsOnly{transport(serverCAs, cfg.ServerName, nil, forwardTimeout, false)},
		identityUpgrade: httpsOnly{transport(serverCAs, cfg.ServerName, frontProxy, forwardTimeout, true)},
		anonUpgrade:     httpsOnly{transport(serverCAs, cfg.ServerName, nil, forwardTimeout, true)}}
	if cfg.Flaw == FlawForwardAsItself {
		control, err := loadKeyPair(cfg.ControlCert, cfg.ControlKey)
		if err != nil {
			return nil, fmt.Errorf("peerproxy: control client certificate: %w", err)
		}
		p.asItself = httpsOnly{transport(serverCAs, cfg.ServerName, control, cfg.PeerTimeout, false)}
		p.asItselfUpgrade = httpsOnly{transport(serverCAs, cfg.ServerName, control, cfg.PeerTimeout, true)}
	}
	if cfg.AdvertiseURL == "" {
		cfg.AdvertiseURL = cfg.APIServer
	}
	p.reg = newRegistry(cfg, c, p.metrics)
	if err := p.reg.register(ctx); err != nil {
		return nil, fmt.Errorf("peerproxy %s: registering in %s for %v (is it up, and may the control identity write leases in kube-system?): %w", cfg.ID, cfg.APIServer, registerBound, err)
	}
	p.reg.sync(ctx)
	if err := p.reg.ready(); err != nil {
		p.reg.deregister(ctx)
		return nil, fmt.Errorf("peerproxy %s: %v: is %s serving?", cfg.ID, err, cfg.APIServer)
	}
	l, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		p.reg.deregister(ctx)
		return nil, fmt.Errorf("peerproxy %s: listening on %s: %w (is the port in use?)", cfg.ID, cfg.Listen, err)
	}
	if cfg.MetricsListen != "" {
		if p.msrv, err = serveMetrics(cfg.MetricsListen, p.metrics.registry); err != nil {
			l.Close()
			p.reg.deregister(ctx)
			return nil, fmt.Errorf("peerproxy %s: %w", cfg.ID, err)
		}
	}
	p.server = p.newServer(servingPair.serving, clientCAs)
	runCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.reg.run(runCtx)
	p.serve(l)
	return p, nil
}

// newServer is the proxy's HTTPS server, presenting cert and verifying the client
// certificates clientCAs sign, bounded as kube-apiserver bounds its own.
func (p *Proxy) newServer(cert func(*tls.ClientHelloInfo) (*tls.Certificate, error), clientCAs *x509.CertPool) *http.Server {
	return serving.Bounded(&http.Server{Handler: p, TLSConfig: &tls.Config{
		GetCertificate: cert, ClientCAs: clientCAs, ClientAuth: tls.VerifyClientCertIfGiven,
		NextProtos: []string{"h2", "http/1.1"},
	}})
}

// serve serves clients on l until Shutdown or Close.
func (p *Proxy) serve(l net.Listener) {
	p.conns = trackConns(l)
	go func() {
		defer close(p.done)
		p.server.ServeTLS(p.conns, "", "")
	}()
}

// Peers is how many peers the proxy currently knows what they serve.
func (p *Proxy) Peers() int {
	_, peers := p.reg.views()
	return len(peers)
}

// URL is where clients reach the proxy.
func (p *Proxy) URL() string { return "https://" + p.cfg.Listen }

// Metrics is the proxy's Prometheus registry (for tests and embedding).
func (p *Proxy) Metrics() *prometheus.Registry { return p.metrics.registry }

// Shutdown is a graceful stop: the lease is deleted first, so peers stop routing here at
// once, then in-flight requests finish (until ctx ends). Upgraded connections (exec,
// attach, port-forward, websocket watches) have no end to wait for: they are closed once
// the ordinary requests are done, as the apiserver's own would be when it exits.
func (p *Proxy) Shutdown(ctx context.Context) error {
	p.cancel()
	p.reg.deregister(ctx)
	if p.msrv != nil {
		p.msrv.Close()
	}
	err := p.server.Shutdown(ctx)
	p.conns.closeAll()
	<-p.done
	return err
}

// Close is a crash: connections drop, upgraded ones too, and the lease is left to
// expire, as after SIGKILL.
func (p *Proxy) Close() error {
	p.cancel()
	if p.msrv != nil {
		p.msrv.Close()
	}
	err := p.server.Close()
	p.conns.closeAll()
	<-p.done
	return err
}

func loadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("peerproxy: reading CA %s: %w", path, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("peerproxy: %s holds no PEM certificate", path)
	}
	return pool, nil
}
