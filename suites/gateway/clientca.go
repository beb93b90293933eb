package gateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"github.com/skewcheck/skewcheck/framework"
)

// clientAuthority is a client CA of the test's own: a cluster that lists it as its
// client CA accepts the certificates it issues, and no other cluster does.
type clientAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	PEM  []byte
}

func newClientAuthority(name string) *clientAuthority {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: name}, key)
	Expect(err).NotTo(HaveOccurred())
	certPEM, err := certutil.EncodeCertificates(cert)
	Expect(err).NotTo(HaveOccurred())
	return &clientAuthority{cert: cert, key: key, PEM: certPEM}
}

// as is e reached with a client certificate of the authority's for user in groups, in
// place of the admin's. client-go signs only self-signed certificates, so the leaf is
// signed here.
func (a *clientAuthority) as(e *framework.Endpoint, user string, groups ...string) *framework.Endpoint {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: user, Organization: groups},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, key.Public(), a.key)
	Expect(err).NotTo(HaveOccurred())
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	Expect(err).NotTo(HaveOccurred())
	cert, err := x509.ParseCertificate(der)
	Expect(err).NotTo(HaveOccurred())
	certPEM, err := certutil.EncodeCertificates(cert)
	Expect(err).NotTo(HaveOccurred())
	cfg := rest.CopyConfig(e.Admin)
	cfg.CertFile, cfg.KeyFile = "", ""
	cfg.CertData, cfg.KeyData = certPEM, keyPEM
	out := *e
	out.Name = e.Name + " as " + user
	out.Admin = cfg
	return &out
}
