// Package gateway is skewcheck's reference API gateway: one TLS listener in front of
// several sets of kube-apiservers (UpstreamClusters, chosen by the server name a client
// asks for, or by its Host header as KubeGateway chooses), configured with KubeGateway's UpstreamCluster documents read from a
// directory and reloaded when it changes. It implements the contract of the gateway
// profile (suites/gateway) and goes beyond KubeGateway where that is weak: routing by
// each upstream's own discovery (a skewed GVR only goes to upstreams that serve it), a
// retry of idempotent requests on another upstream, and a bounded time to 503.
package gateway

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skewcheck/skewcheck/reference/internal/serving"
	"github.com/skewcheck/skewcheck/reference/internal/upgrade"
)

// Config is how to run a gateway.
type Config struct {
	// Listen is the address clients connect to, ip:port (TLS).
	Listen string
	// ConfigDir holds the UpstreamCluster documents (*.yaml, *.yml, *.json).
	ConfigDir string
	// StatusFile is where the outcome of every configuration load is written (see
	// status.go); default ConfigDir/.gateway-status.json (hidden files are not read as
	// configuration).
	StatusFile string
	// ServingCert and ServingKey are presented to clients whose server name selects no
	// cluster, and to clusters that bring no certificate of their own.
	ServingCert, ServingKey string
	// ClientCA verifies client certificates for clusters that bring no client CA.
	ClientCA string
	// DefaultServerName selects the cluster for clients that send no server name (they
	// connect to an IP address).
	DefaultServerName string
	// RouteByHost selects the cluster by the request's Host header, as KubeGateway does,
	// instead of the TLS server name, which then only picks the certificate and client CA
	// (selection.go).
	RouteByHost bool
	// MetricsListen, if set, serves Prometheus metrics at /metrics there.
	MetricsListen string
	// UpstreamTimeout bounds dialing, TLS handshakes and HTTP/2 pings to an upstream: a
	// frozen upstream is found, and its requests fail over or answer 503, within about
	// twice this. Default 2s.
	UpstreamTimeout time.Duration
	// StreamWait bounds how long a request waits for a stream to the upstream chosen for
	// it, within its client's fair share of that upstream's streams (fairshare.go); then it
	// goes to another server of its policy that has one free for the client, else it is
	// answered 503 with Retry-After. Default 5s.
	StreamWait time.Duration
	// IdleTimeout closes a client connection that has had no request in flight for this
	// long. Default kube-apiserver's, 90 s (reference/internal/serving).
	IdleTimeout time.Duration
	// UpgradeIdleTimeout ends an upgraded session (exec, attach, port-forward, a websocket)
	// once no byte has passed either way for this long, as the container runtime's
	// streaming server ends an idle stream (reference/internal/upgrade says where upstream
	// bounds it). Default upgrade.DefaultIdleTimeout (4 h); negative: no bound.
	UpgradeIdleTimeout time.Duration
	// HealthEvery is how often each upstream's /readyz is checked (default 1s);
	// DiscoveryEvery how often its own discovery is read (default 30s).
	HealthEvery, DiscoveryEvery time.Duration
	// ReloadEvery is how often ConfigDir is looked at for changes (default 200ms).
	ReloadEvery time.Duration
	// Defects switch on deliberate mistakes, to show the gateway profile can fail.
	Defects Defects
	// Log receives what the gateway has to say (reloads, refused configurations).
	Log io.Writer
}

func (c *Config) setDefaults() {
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = 2 * time.Second
	}
	if c.StreamWait == 0 {
		c.StreamWait = 5 * time.Second
	}
	if c.UpgradeIdleTimeout == 0 {
		c.UpgradeIdleTimeout = upgrade.DefaultIdleTimeout
	}
	if c.HealthEvery == 0 {
		c.HealthEvery = time.Second
	}
	if c.DiscoveryEvery == 0 {
		c.DiscoveryEvery = 30 * time.Second
	}
	if c.ReloadEvery == 0 {
		c.ReloadEvery = 200 * time.Millisecond
	}
	if c.StatusFile == "" && c.ConfigDir != "" {
		c.StatusFile = DefaultStatusFile(c.ConfigDir)
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}

// Gateway is a running gateway.
type Gateway struct {
	cfg      Config
	defaults servingDefaults
	metrics  *metrics
	errorLog *log.Logger
	state    atomic.Pointer[state]
	pool     *pool

	listener  net.Listener
	mlistener net.Listener
	server    *http.Server
	msrv      *http.Server
	stop      context.CancelFunc
	done      sync.WaitGroup
	// turn is the lock the BodiesInTurn defect reads every request body under.
	turn sync.Mutex
}

// state is one applied configuration.
type state struct {
	fingerprint [32]byte
	clusters    []*cluster
	bySNI       map[string]*cluster
}

func (s *state) serverNames() []string {
	out := make([]string, 0, len(s.bySNI))
	for n := range s.bySNI {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *state) cluster(name string) *cluster {
	for _, c := range s.clusters {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Start loads the configuration (an invalid one is an error: nothing is served), checks
// every upstream once, and serves.
func Start(cfg Config) (*Gateway, error) {
	cfg.setDefaults()
	if cfg.Listen == "" || cfg.ConfigDir == "" {
		return nil, errors.New("gateway: Listen and ConfigDir are required (--listen, --config-dir)")
	}
	g := &Gateway{cfg: cfg, metrics: newMetrics(), errorLog: log.New(cfg.Log, "gateway: ", log.LstdFlags)}
	if err := g.loadDefaults(); err != nil {
		return nil, err
	}
	g.pool = newPool(cfg.UpstreamTimeout, timings{healthEvery: cfg.HealthEvery, healthTimeout: cfg.UpstreamTimeout,
		discoveryEvery: cfg.DiscoveryEvery, discoveryTimeout: 5 * cfg.UpstreamTimeout}, g.healthChanged, g.metrics.forget)
	if _, err := g.reload(true); err != nil {
		g.pool.closeAll()
		return nil, err
	}
	l, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		g.pool.closeAll()
		return nil, fmt.Errorf("gateway: listening on %s: %w (is the port in use, is the address on this host?)", cfg.Listen, err)
	}
	g.listener = l
	if cfg.MetricsListen != "" {
		ml, err := net.Listen("tcp", cfg.MetricsListen)
		if err != nil {
			l.Close()
			g.pool.closeAll()
			return nil, fmt.Errorf("gateway: metrics listener %s: %w", cfg.MetricsListen, err)
		}
		g.mlistener = ml
		g.msrv = &http.Server{Handler: promhttp.HandlerFor(g.metrics.registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 10 * time.Second}
		go g.msrv.Serve(ml)
	}
	g.server = g.newServer()
	ctx, cancel := context.WithCancel(context.Background())
	g.stop = cancel
	g.done.Add(2)
	go func() {
		defer g.done.Done()
		if err := g.server.ServeTLS(l, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			g.errorLog.Printf("serving: %v", err)
		}
	}()
	go func() {
		defer g.done.Done()
		every(ctx, cfg.ReloadEvery, func() { g.reload(false) })
	}()
	return g, nil
}

// newServer is the gateway's HTTPS server, bounded as kube-apiserver bounds its own.
func (g *Gateway) newServer() *http.Server {
	s := serving.Bounded(&http.Server{Handler: g, ErrorLog: g.errorLog,
		TLSConfig: &tls.Config{GetConfigForClient: g.tlsFor, NextProtos: []string{"h2", "http/1.1"}}})
	if g.cfg.IdleTimeout > 0 {
		s.IdleTimeout = g.cfg.IdleTimeout // HTTP/2 takes the server's (serving.Bounded)
	}
	return s
}

// healthChanged records an upstream going in or out of the rotation, with why it went out:
// the log is what a failed test's evidence shows of the gateway's view.
func (g *Gateway) healthChanged(u *upstream, healthy bool) {
	g.metrics.health(u, healthy)
	if healthy {
		g.errorLog.Printf("upstream %s of UpstreamCluster %q is healthy", u.endpoint, u.cluster)
		return
	}
	g.errorLog.Printf("upstream %s of UpstreamCluster %q is out of the rotation: %s", u.endpoint, u.cluster, u.status().LastError)
}

// URL is where clients reach the gateway.
func (g *Gateway) URL() string { return "https://" + g.listener.Addr().String() }

// MetricsURL is where its Prometheus metrics are served, "" without Config.MetricsListen.
func (g *Gateway) MetricsURL() string {
	if g.mlistener == nil {
		return ""
	}
	return "http://" + g.mlistener.Addr().String() + "/metrics"
}

func (g *Gateway) loadDefaults() error {
	if g.cfg.ServingCert != "" || g.cfg.ServingKey != "" {
		cert, err := tls.LoadX509KeyPair(g.cfg.ServingCert, g.cfg.ServingKey)
		if err != nil {
			return fmt.Errorf("gateway: serving certificate %s with key %s: %w", g.cfg.ServingCert, g.cfg.ServingKey, err)
		}
		g.defaults.cert = &cert
	}
	if g.cfg.ClientCA != "" {
		b, err := os.ReadFile(g.cfg.ClientCA)
		if err != nil {
			return fmt.Errorf("gateway: client CA: %w", err)
		}
		g.defaults.clientCAs = x509.NewCertPool()
		if !g.defaults.clientCAs.AppendCertsFromPEM(b) {
			return fmt.Errorf("gateway: client CA %s holds no PEM certificate", g.cfg.ClientCA)
		}
	}
	return nil
}

// tlsFor picks the TLS configuration by the server name the client asks for: the
// selected cluster's, else the gateway's own certificate (for health checks; requests
// are then refused in serveUnselected).
func (g *Gateway) tlsFor(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	name := hello.ServerName
	if name == "" {
		name = g.cfg.DefaultServerName
	}
	if c := g.state.Load().bySNI[strings.ToLower(name)]; c != nil {
		return c.tls, nil
	}
	if g.defaults.cert == nil {
		return nil, fmt.Errorf("server name %q selects no UpstreamCluster and the gateway has no certificate of its own", hello.ServerName)
	}
	return &tls.Config{Certificates: []tls.Certificate{*g.defaults.cert}, NextProtos: []string{"h2", "http/1.1"}}, nil
}

// Upstreams reports what the gateway knows of every server of every cluster.
func (g *Gateway) Upstreams() []UpstreamStatus {
	var out []UpstreamStatus
	for _, c := range g.state.Load().clusters {
		for _, u := range c.servers {
			out = append(out, u.status())
		}
	}
	return out
}

// Shutdown stops accepting, lets requests in flight finish until ctx ends, and stops
// checking upstreams.
func (g *Gateway) Shutdown(ctx context.Context) error {
	g.stop()
	err := g.server.Shutdown(ctx)
	g.finish()
	return err
}

// Close ends everything at once.
func (g *Gateway) Close() error {
	g.stop()
	err := g.server.Close()
	g.finish()
	return err
}

func (g *Gateway) finish() {
	g.done.Wait()
	if g.msrv != nil {
		g.msrv.Close()
	}
	g.pool.closeAll()
}
