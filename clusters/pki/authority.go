package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"time"
)

// authority is a CA held in memory while it signs certificates.
type authority struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// newAuthority makes a self-signed CA called commonName and writes it to p.
//
// The bundle has two CAs, not one, because kube-apiserver treats any client
// certificate signed by --requestheader-client-ca-file as a front proxy that
// may assert arbitrary identities in headers; if the cluster CA were reused
// there, every client certificate could impersonate every user.
func newAuthority(commonName string, p Pair) (*authority, error) {
	key, err := newCertKey()
	if err != nil {
		return nil, fmt.Errorf("create CA %q: %w", commonName, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, fmt.Errorf("create CA %q: %w", commonName, err)
	}
	notBefore, notAfter := validity(time.Now(), caValidity, time.Time{})
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("create CA %q: self-sign: %w", commonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("create CA %q: re-read the certificate just made: %w", commonName, err)
	}
	if err := writePair(p, der, key); err != nil {
		return nil, fmt.Errorf("create CA %q: %w", commonName, err)
	}
	return &authority{cert: cert, key: key}, nil
}

// loadAuthority reads a CA that newAuthority wrote to p. The CA is read from
// disk each time a certificate is issued instead of being kept in the
// Bundle, so a Bundle from Load (or one put together by hand) can issue
// certificates exactly like one from New.
func loadAuthority(p Pair) (*authority, error) {
	certPEM, err := os.ReadFile(p.CertFile)
	if err != nil {
		return nil, fmt.Errorf("read CA certificate: %w", err)
	}
	cert, err := parseCertificatePEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("read CA certificate %s: %w", p.CertFile, err)
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("read CA certificate %s: it is not a CA certificate (IsCA is false); point the bundle at the CA, or recreate it with pki.New", p.CertFile)
	}
	keyPEM, err := os.ReadFile(p.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("read CA key: %w", err)
	}
	key, err := parsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("read CA key %s: %w", p.KeyFile, err)
	}
	// tls.X509KeyPair is the cheapest reliable "does this key belong to this
	// certificate" check; signing with a mismatched key would produce
	// certificates nobody can verify, and the failure would surface far
	// away as a TLS handshake error.
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return nil, fmt.Errorf("CA key %s does not match certificate %s: %w; recreate the bundle with pki.New", p.KeyFile, p.CertFile, err)
	}
	return &authority{cert: cert, key: key}, nil
}

// issue signs a new leaf certificate for tmpl (subject, SANs and extended
// key usage filled in by the caller) with a fresh key, and writes both to p.
// Serial number, validity and key usage are set here so every leaf gets
// them the same way.
func (a *authority) issue(tmpl *x509.Certificate, p Pair) error {
	return a.issueFor(tmpl, p, leafValidity)
}

// issueFor is issue with a validity of d from now; a negative d makes a certificate that
// has already expired (NotBefore backdated past it), which Reissue writes on purpose.
func (a *authority) issueFor(tmpl *x509.Certificate, p Pair, d time.Duration) error {
	key, err := newCertKey()
	if err != nil {
		return err
	}
	serial, err := randomSerial()
	if err != nil {
		return err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = validity(time.Now(), d, a.cert.NotAfter)
	if d < 0 {
		tmpl.NotBefore = tmpl.NotAfter.Add(-backdate)
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature // all an ECDSA TLS key needs
	tmpl.BasicConstraintsValid = true             // and IsCA false: a leaf must not sign
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	if err != nil {
		return fmt.Errorf("sign with CA %q: %w", a.cert.Subject.CommonName, err)
	}
	return writePair(p, der, key)
}

// writePair writes a certificate and its key, each atomically. Between the
// two renames a reader may find the new key beside the old certificate;
// kube-apiserver's certificate reloader rejects such a mismatch, keeps what
// it had, and picks up the pair on the certificate's own change event.
func writePair(p Pair, der []byte, key crypto.Signer) error {
	keyPEM, err := privateKeyPEM(key)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(p.KeyFile, keyPEM, keyFileMode); err != nil {
		return err
	}
	return writeFileAtomic(p.CertFile, certificatePEM(der), certFileMode)
}
