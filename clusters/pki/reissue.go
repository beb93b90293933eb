package pki

import (
	"crypto/x509"
	"fmt"
	"os"
	"slices"
	"time"
)

// Reissue replaces the certificate and key in p by a new pair for the same subject, names
// and usages, signed by the CA in ca: the rotation a certificate manager does on disk
// while a server runs. With expired, the new certificate's validity ended an hour before
// now (NotBefore two hours before), as one left to lapse. Each file is replaced
// atomically (writePair), so a reader sees the old pair or the new one, never a torn file.
func Reissue(ca, p Pair, expired bool) error {
	old, err := readCertificate(p.CertFile)
	if err != nil {
		return fmt.Errorf("pki: reissue %s: %w", p.CertFile, err)
	}
	a, err := loadAuthority(ca)
	if err != nil {
		return fmt.Errorf("pki: reissue %s with the CA %s: %w", p.CertFile, ca.CertFile, err)
	}
	tmpl := &x509.Certificate{Subject: old.Subject, DNSNames: slices.Clone(old.DNSNames),
		IPAddresses: slices.Clone(old.IPAddresses), ExtKeyUsage: slices.Clone(old.ExtKeyUsage)}
	validFor := leafValidity
	if expired {
		validFor = -time.Hour
	}
	if err := a.issueFor(tmpl, p, validFor); err != nil {
		return fmt.Errorf("pki: reissue %s: %w", p.CertFile, err)
	}
	return nil
}

// NewCA writes a new self-signed CA called commonName to p: an authority nothing else
// trusts, for a trust file replaced by the wrong CA.
func NewCA(commonName string, p Pair) error {
	if _, err := newAuthority(commonName, p); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

// readCertificate reads the first certificate of a PEM file.
func readCertificate(path string) (*x509.Certificate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCertificatePEM(b)
}
