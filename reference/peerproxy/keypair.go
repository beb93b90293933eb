package peerproxy

import (
	"crypto/tls"
	"fmt"
	"sync"
	"time"
)

// keyPair is a certificate read from files and read again when they may have changed,
// at most once per reloadEvery, on a new TLS handshake. Upstream's peer proxy does the
// same with --proxy-client-cert-file (k8s.io/client-go cachingCertificateLoader: v0.36.3
// transport/transport.go:147 and :382-413, v0.35.4 :146 and :367-398, files read at most
// once a second), and its serving side with --tls-cert-file (k8s.io/apiserver
// pkg/server/dynamiccertificates: fsnotify and a 1 min resync). A certificate rotated on
// disk is presented on the next new connection; a pair that fails to load (the key
// written before its certificate) keeps the last good one.
type keyPair struct {
	certFile, keyFile string

	mu     sync.Mutex
	cert   *tls.Certificate
	loaded time.Time
}

// reloadEvery is how stale a client certificate read from disk may be.
const reloadEvery = time.Second

func loadKeyPair(certFile, keyFile string) (*keyPair, error) {
	c := &keyPair{certFile: certFile, keyFile: keyFile}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("peerproxy: client certificate %s: %w", certFile, err)
	}
	c.cert, c.loaded = &cert, time.Now()
	return c, nil
}

// serving is the certificate to present now to a client (tls.Config.GetCertificate).
func (c *keyPair) serving(*tls.ClientHelloInfo) (*tls.Certificate, error) { return c.get(nil) }

// get is the certificate to present now to a server (tls.Config.GetClientCertificate).
func (c *keyPair) get(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
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
