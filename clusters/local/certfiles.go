package local

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/clusters/pki"
)

// CertFiles are the files this server reads: the capability certificate faults act on.
func (s *Server) CertFiles() node.CertFiles { return s.Certs }

// CertSidecar is a proxy in front of a server that says which client certificate it
// presents to the apiservers, so a fault can rotate it (the reference peer proxy does).
type CertSidecar interface {
	ProxyClientFiles() pki.Pair
}

// CertFiles of a fronted server: its apiserver's serving certificate, which peers and the
// proxies in front of them verify, and the sidecar's client certificate if it declares
// one. A sidecar's peer CA is its own business: none is declared.
func (f *Fronted) CertFiles() node.CertFiles {
	c := f.server.Certs
	c.PeerCA, c.ProxyClient = "", pki.Pair{}
	if sc, ok := f.Sidecar.(CertSidecar); ok {
		c.ProxyClient = sc.ProxyClientFiles()
	} else {
		c.ProxyClientCA = pki.Pair{}
	}
	return c
}

// certFiles fills s.Certs once its serving certificate is issued. The peer CA is a copy
// of the cluster CA in the server's own directory: the cluster CA file is also every
// server's --client-ca-file, which a fault on one server's peer CA must not touch.
func (c *Cluster) certFiles(s *Server) error {
	ca, err := os.ReadFile(c.PKI.CA.CertFile)
	if err != nil {
		return fmt.Errorf("copying the cluster CA for %s's --peer-ca-file: %w", s.Name, err)
	}
	peerCA := filepath.Join(s.Dir, "peer-ca.crt")
	if err := os.WriteFile(peerCA, ca, 0o644); err != nil {
		return fmt.Errorf("writing %s's --peer-ca-file: %w", s.Name, err)
	}
	s.Certs = node.CertFiles{Serving: s.Serving, ServingCA: c.PKI.CA, ServingAt: fmt.Sprintf("%s:%d", s.IP, s.Port),
		ProxyClient: c.PKI.FrontProxyClient, ProxyClientCA: c.PKI.FrontProxyCA, PeerCA: peerCA}
	return nil
}
