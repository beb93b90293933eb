// Package aggregated is an extension API server small enough to read in one sitting: one
// namespaced resource kept in memory, legacy discovery, served over TLS under a certificate
// of its own. The suites put it behind an APIService with spec.service, to see what each
// kube-apiserver (and any proxy in front of them) does with an aggregated API during skew:
// every apiserver's aggregator reaches it itself, so no request for it is ever a peer's.
//
// It is a test fixture, not an apiserver to build on: it trusts whoever reaches it (an
// aggregator sends the user in X-Remote-* headers under its front-proxy client certificate;
// this server neither checks the certificate nor reads the headers, and serves only objects
// the test made), and it listens only on an address the test gives it, for one test.
package aggregated

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	certutil "k8s.io/client-go/util/cert"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Server serves GVR at an address on this machine until Close.
type Server struct {
	// GVR is the one resource it serves (namespaced), in the group-version it serves alone.
	GVR discovery.GVR
	// ServerName is the name its certificate is for: what an aggregator asks for over TLS
	// (<service>.<namespace>.svc of the APIService's spec.service).
	ServerName string
	// CABundle verifies its certificate: an APIService's spec.caBundle.
	CABundle []byte

	host string
	port int // set by Start, kept across Stop and Resume
	cert tls.Certificate

	mu       sync.Mutex
	srv      *http.Server
	listener net.Listener
	store    *store
}

// Start serves g under serverName on host (an IP address of this machine) at a port the
// kernel picks, which it keeps across Stop and Resume.
func Start(g discovery.GVR, serverName, host string) (*Server, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(serverName, nil, []string{serverName})
	if err != nil {
		return nil, fmt.Errorf("making the aggregated API server's certificate for %s: %w", serverName, err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("reading back the aggregated API server's certificate: %w", err)
	}
	s := &Server{GVR: g, ServerName: serverName, CABundle: certPEM, host: host, cert: cert, store: newStore(g)}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("the aggregated API server cannot listen on %s: %w; is %s an address of this machine?", host, err, host)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	s.serve(l)
	return s, nil
}

// Port is the port it listens on.
func (s *Server) Port() int { return s.port }

// URL is where it is reached from this machine.
func (s *Server) URL() string { return "https://" + net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// Stop takes it down as a crashed backend is: the port refuses connections and every open
// one is cut. Its objects are kept for Resume.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		return nil
	}
	// The listener is closed here too: Close only closes the listeners Serve has begun on.
	err := errors.Join(s.srv.Close(), ignoreClosed(s.listener.Close()))
	s.srv, s.listener = nil, nil
	if err != nil {
		return fmt.Errorf("stopping the aggregated API server at %s: %w", s.URL(), err)
	}
	return nil
}

// Resume serves again on the port it had. The kernel may hold a port just given up for a
// moment, so it retries for up to 5 s.
func (s *Server) Resume() error {
	s.mu.Lock()
	running := s.srv != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	addr := net.JoinHostPort(s.host, strconv.Itoa(s.port))
	var l net.Listener
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if l, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("the aggregated API server cannot listen on %s again: %w", addr, err)
	}
	s.serve(l)
	return nil
}

// Close stops it at the end of a test (Stop, by the name a cleanup reads).
func (s *Server) Close() error { return s.Stop() }

// serve answers on l until Stop. TLS handshakes cut short (an availability probe closing
// early, a stop) are not worth a line on the harness's output.
func (s *Server) serve(l net.Listener) {
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{s.cert}, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12},
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	s.mu.Lock()
	s.srv, s.listener = srv, l
	s.mu.Unlock()
	go func() { _ = srv.ServeTLS(l, "", "") }() // it returns when Stop closes it
}

func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// handler serves discovery, health and the resource.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	for _, p := range []string{"/healthz", "/readyz", "/livez"} {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	}
	s.discoveryRoutes(mux)
	s.store.routes(mux)
	return mux
}
