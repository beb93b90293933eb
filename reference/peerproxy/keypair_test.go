package peerproxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeSelfSigned writes a new self-signed client certificate called cn to dir.
func writeSelfSigned(t *testing.T, dir, cn string) (certFile, keyFile string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	return certFile, keyFile
}

func commonName(t *testing.T, c *tls.Certificate) string {
	t.Helper()
	x, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return x.Subject.CommonName
}

// A client certificate rotated on disk is presented from the next handshake a second
// later, as upstream's peer proxy presents its --proxy-client-cert-file; a torn pair (a
// key that does not match) keeps the last good one.
func TestKeyPairReloads(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := writeSelfSigned(t, dir, "first")
	c, err := loadKeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	writeSelfSigned(t, dir, "second")
	if got, _ := c.get(nil); commonName(t, got) != "first" {
		t.Errorf("within a second of loading: %s, want the cached first", commonName(t, got))
	}
	c.loaded = c.loaded.Add(-reloadEvery)
	if got, _ := c.get(nil); commonName(t, got) != "second" {
		t.Errorf("after the reload period: %s, want the rotated second", commonName(t, got))
	}
	other := t.TempDir()
	_, otherKey := writeSelfSigned(t, other, "other")
	b, _ := os.ReadFile(otherKey)
	os.WriteFile(keyFile, b, 0o600) // the key written before its certificate
	c.loaded = c.loaded.Add(-reloadEvery)
	if got, err := c.get(nil); err != nil || commonName(t, got) != "second" {
		t.Errorf("with a torn pair on disk: %v, %v; want the last good certificate", got, err)
	}
	if _, err := loadKeyPair(filepath.Join(dir, "nope.crt"), keyFile); err == nil {
		t.Error("a missing certificate loads")
	}
}

// Only FlawUntrustedPeerNotFound turns a certificate that cannot be verified into 404;
// other failures to reach a peer stay 503 for it too.
func TestFlawNotFoundFor(t *testing.T) {
	verify := fmt.Errorf("dial: %w", &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.Expired}})
	for _, c := range []struct {
		f    Flaw
		err  error
		want bool
	}{
		{FlawUntrustedPeerNotFound, verify, true},
		{FlawUntrustedPeerNotFound, fmt.Errorf("connection refused"), false},
		{NoFlaw, verify, false},
		{FlawForgetUnreachablePeer, verify, false},
	} {
		if got := c.f.notFoundFor(c.err); got != c.want {
			t.Errorf("%q.notFoundFor(%v) = %v, want %v", c.f, c.err, got, c.want)
		}
	}
}
