package proxystate

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// From inside the cluster each lease's peer address is dialled as a peer dials it: a
// server signed by the cluster CA for kubernetes.default.svc is verified; a self-signed one,
// and one signed by the CA for another name, are unverified with the x509 error; a closed
// port is unreachable; a lease with no address is not checked, and says why.
func TestPeerAddressTLS(t *testing.T) {
	ca := newTestCA(t)
	addresses := []string{
		serveTLS(t, ca.leaf(t, peerServerName)),
		serveTLS(t, selfSigned(t, peerServerName)),
		serveTLS(t, ca.leaf(t, "apiserver.example")),
		closedPort(t),
		"",
	}
	var fakes []*fake
	for i := range addresses {
		fakes = append(fakes, &fake{name: fmt.Sprintf("cp-%d", i+1), version: "v1.36.3", served: set(gvrPods), gate: "1", hook: true})
	}
	fakes[0].leaseAddresses = addresses // only the first server is asked for the leases
	p := Read(context.Background(), inCluster(target(t, fakes...), ca))
	want := []struct{ state, evidence string }{
		{report.PeerTLSVerified, "TLS to " + addresses[0] + " as kubernetes.default.svc against " + ca.file},
		{report.PeerTLSUnverified, "x509: certificate signed by unknown authority"},
		{report.PeerTLSUnverified, "x509: certificate is valid for apiserver.example, not kubernetes.default.svc"},
		{report.PeerTLSUnreachable, "connection refused"},
		{report.NotChecked, "its identity lease names no peer address"},
	}
	for i, w := range want {
		got := p.Servers[i].PeerAddressTLS
		if got == nil || got.State != w.state || !strings.Contains(got.Evidence, w.evidence) {
			t.Errorf("%s at %q: %+v, want %s with %q", p.Servers[i].Name, addresses[i], got, w.state, w.evidence)
		}
	}
	if line := p.Servers[0].Line(); !strings.HasSuffix(line, "; peer TLS verified (TLS to "+addresses[0]+" as kubernetes.default.svc against "+ca.file+")") {
		t.Errorf("cp-1's line does not end with its peer TLS: %q", line)
	}
	if line := p.Servers[4].Line(); strings.Contains(line, "peer TLS") {
		t.Errorf("a line with no peer address says something of its TLS: %q", line)
	}
}

// Outside the cluster nothing is dialled: the finding says why, and the line says nothing.
func TestPeerAddressTLSOutside(t *testing.T) {
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", hook: true, leaseAddresses: []string{closedPort(t)}}
	p := Read(context.Background(), target(t, cp1))
	s := p.Servers[0]
	if got := s.PeerAddressTLS; got == nil || got.State != report.NotChecked || got.Evidence != report.NotCheckedOutside {
		t.Errorf("outside the cluster: %+v, want not checked, %q", got, report.NotCheckedOutside)
	}
	if strings.Contains(s.Line(), "peer TLS") {
		t.Errorf("outside the cluster, the line says something of TLS: %q", s.Line())
	}
}

// An address that accepts and never completes a handshake costs Read its bound.
func TestPeerAddressTLSBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the test ends
		}
	}()
	ca := newTestCA(t)
	cp1 := &fake{name: "cp-1", version: "v1.36.3", served: set(gvrPods), gate: "1", hook: true, leaseAddresses: []string{l.Addr().String()}}
	tg := inCluster(target(t, cp1), ca)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	p := Read(ctx, tg)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Read took %v with a context of 300ms", took)
	}
	if got := p.Servers[0].PeerAddressTLS; got == nil || got.State != report.PeerTLSUnreachable {
		t.Errorf("a silent address: %+v, want unreachable", got)
	}
}

// inCluster makes tg's servers reached as rest.InClusterConfig reaches them from a pod:
// with the ServiceAccount's token file, which marks the run inside, and its CA, here ca.
func inCluster(tg *framework.Target, ca *testCA) *framework.Target {
	for _, e := range tg.Endpoints {
		e.Admin.BearerToken, e.Admin.BearerTokenFile, e.Admin.TLSClientConfig.CAFile = "token", serviceAccountToken, ca.file
	}
	return tg
}

// testCA is the "cluster CA": its certificate in a PEM file, as the pod's ca.crt is.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test cluster CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, file: file}
}

// leaf is a serving certificate for name, signed by the CA.
func (ca *testCA) leaf(t *testing.T, name string) tls.Certificate {
	return serving(t, name, ca.cert, ca.key)
}

// selfSigned is a serving certificate for name that signs itself.
func selfSigned(t *testing.T, name string) tls.Certificate { return serving(t, name, nil, nil) }

// serving is a serving certificate for name, signed by parent (itself when nil).
func serving(t *testing.T, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// serveTLS serves TLS with cert and returns its host:port. The handshakes the check
// refuses are the test's point, not the server's log.
func serveTLS(t *testing.T, cert tls.Certificate) string {
	s := httptest.NewUnstartedServer(http.NotFoundHandler())
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s.Listener.Addr().String()
}

// closedPort is an address nothing listens at.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := l.Addr().String()
	l.Close()
	return address
}
