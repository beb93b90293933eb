package peerproxy

import (
	"crypto/tls"
	"fmt"
	"sync"
	"time"
)

// clientCert is a client certificate read from files and read again when they may have
// changed, at most once per reloadEvery, as upstream's peer proxy does with
// --proxy-client-cert-file (k8s.io/client-go v0.36.3 transport/transport.go:146-147 and
// :381-413, cachingCertificateLoader: files read at most once a second, on each new TLS
// handshake). A certificate rotated on disk is presented on the next new connection; a
// pair that fails to load (the key written before its certificate) keeps the last good one.
type clientCert struct {
	certFile, keyFile string

	mu     sync.Mutex
	cert   *tls.Certificate
	loaded time.Time
}

// reloadEvery is how stale a client certificate read from disk may be.
const reloadEvery = time.Second

func loadClientCert(certFile, keyFile string) (*clientCert, error) {
	c := &clientCert{certFile: certFile, keyFile: keyFile}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("peerproxy: client certificate %s: %w", certFile, err)
	}
	c.cert, c.loaded = &cert, time.Now()
	return c, nil
}

// get is the certificate to present now (tls.Config.GetClientCertificate).
func (c *clientCert) get(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.loaded) >= reloadEvery {
		c.loaded = time.Now()
		if cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile); err == nil {
			c.cert = &cert
		}
	}
	return c.cert, nil
}
