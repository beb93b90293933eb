package pki

import (
	"crypto/x509"
	"net"
	"slices"
	"testing"
	"time"
)

// Reissue keeps what the certificate says (subject, names, usages) and changes the rest:
// a new key and serial from the CA given, valid for a year or, asked to, already expired.
func TestReissue(t *testing.T) {
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.ServingCert("apiserver-1", []string{"host-1"}, []net.IP{net.ParseIP("127.77.0.11")})
	if err != nil {
		t.Fatal(err)
	}
	old, _ := readCertificate(p.CertFile)
	for _, expired := range []bool{false, true} {
		if err := Reissue(b.CA, p, expired); err != nil {
			t.Fatal(err)
		}
		got, err := readCertificate(p.CertFile)
		if err != nil {
			t.Fatal(err)
		}
		if got.SerialNumber.Cmp(old.SerialNumber) == 0 || got.Subject.CommonName != "apiserver-1" ||
			!slices.Equal(got.DNSNames, old.DNSNames) || len(got.IPAddresses) != 1 || !slices.Equal(got.ExtKeyUsage, old.ExtKeyUsage) {
			t.Errorf("expired=%v: reissued %+v, want the same subject, names and usages as %+v with a new serial", expired, got, old)
		}
		ca, _ := readCertificate(b.CA.CertFile)
		roots := x509.NewCertPool()
		roots.AddCert(ca)
		_, verr := got.Verify(x509.VerifyOptions{Roots: roots, DNSName: "kubernetes.default.svc", CurrentTime: time.Now()})
		if expired != (verr != nil) || expired && !time.Now().After(got.NotAfter) {
			t.Errorf("expired=%v: verify says %v (NotAfter %v)", expired, verr, got.NotAfter)
		}
	}
	unrelated := Pair{CertFile: t.TempDir() + "/u.crt", KeyFile: t.TempDir() + "/u.key"}
	if err := NewCA("unrelated", unrelated); err != nil {
		t.Fatal(err)
	}
	if u, _ := readCertificate(unrelated.CertFile); u == nil || !u.IsCA || u.Subject.CommonName != "unrelated" {
		t.Errorf("NewCA wrote %+v", u)
	}
}
