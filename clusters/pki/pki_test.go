package pki

import (
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func newBundle(t *testing.T) *Bundle {
	t.Helper()
	b, err := New(filepath.Join(t.TempDir(), "pki"))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

func readCert(t *testing.T, file string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseCertificatePEM(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c
}

func pool(t *testing.T, ca Pair) *x509.CertPool {
	t.Helper()
	p := x509.NewCertPool()
	p.AddCert(readCert(t, ca.CertFile))
	return p
}

// verify checks that the certificate in leaf chains to ca for usage.
func verify(t *testing.T, leaf, ca Pair, opts x509.VerifyOptions) error {
	t.Helper()
	opts.Roots = pool(t, ca)
	_, err := readCert(t, leaf.CertFile).Verify(opts)
	return err
}

func TestNewCAs(t *testing.T) {
	b := newBundle(t)
	for _, p := range []Pair{b.CA, b.FrontProxyCA} {
		c := readCert(t, p.CertFile)
		if !c.IsCA || !c.BasicConstraintsValid {
			t.Errorf("%s: IsCA=%v BasicConstraintsValid=%v, want both true", p.CertFile, c.IsCA, c.BasicConstraintsValid)
		}
		if want := x509.KeyUsageCertSign | x509.KeyUsageCRLSign; c.KeyUsage&want != want {
			t.Errorf("%s: KeyUsage %b lacks CertSign|CRLSign", p.CertFile, c.KeyUsage)
		}
		checkValidity(t, c, caValidity)
	}
	if readCert(t, b.CA.CertFile).Subject.String() == readCert(t, b.FrontProxyCA.CertFile).Subject.String() {
		t.Error("cluster CA and front-proxy CA have the same subject; they must be told apart")
	}
}

func checkValidity(t *testing.T, c *x509.Certificate, d time.Duration) {
	t.Helper()
	now := time.Now()
	if lag := now.Sub(c.NotBefore); lag < backdate-time.Minute || lag > backdate+time.Minute {
		t.Errorf("%s: NotBefore is %v before now, want about %v", c.Subject, lag, backdate)
	}
	if got := c.NotAfter.Sub(now); got < d-time.Minute || got > d+time.Minute {
		t.Errorf("%s: valid for another %v, want about %v", c.Subject, got, d)
	}
	if c.SerialNumber.Sign() <= 0 || c.SerialNumber.BitLen() > 128 {
		t.Errorf("%s: serial %v is not a positive 128-bit number", c.Subject, c.SerialNumber)
	}
}

func TestNewClientCerts(t *testing.T) {
	b := newBundle(t)
	clientAuth := x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	serverAuth := x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, tc := range []struct {
		leaf, ca, otherCA Pair
		user              string
		groups            []string
	}{
		{b.Admin, b.CA, b.FrontProxyCA, AdminUser, []string{"system:masters"}},
		{b.User, b.CA, b.FrontProxyCA, UnprivilegedUser, []string{UnprivilegedGroup}},
		{b.FrontProxyClient, b.FrontProxyCA, b.CA, FrontProxyClientName, nil},
	} {
		t.Run(tc.user, func(t *testing.T) {
			if err := verify(t, tc.leaf, tc.ca, clientAuth); err != nil {
				t.Errorf("does not verify against its CA for ClientAuth: %v", err)
			}
			if err := verify(t, tc.leaf, tc.otherCA, clientAuth); err == nil {
				t.Error("verifies against the other CA; the two CAs must not trust each other's certificates")
			}
			if err := verify(t, tc.leaf, tc.ca, serverAuth); err == nil {
				t.Error("verifies for ServerAuth; a client certificate must not serve")
			}
			c := readCert(t, tc.leaf.CertFile)
			if c.Subject.CommonName != tc.user {
				t.Errorf("CN = %q, want %q", c.Subject.CommonName, tc.user)
			}
			if !slices.Equal(c.Subject.Organization, tc.groups) {
				t.Errorf("O = %q, want %q", c.Subject.Organization, tc.groups)
			}
			if c.IsCA {
				t.Error("leaf is a CA")
			}
			checkValidity(t, c, leafValidity)
			if _, err := tls.LoadX509KeyPair(tc.leaf.CertFile, tc.leaf.KeyFile); err != nil {
				t.Errorf("key does not match certificate: %v", err)
			}
		})
	}
}

func TestNewFileModes(t *testing.T) {
	b := newBundle(t)
	checkMode(t, b.Dir, 0o700|os.ModeDir)
	for _, p := range []Pair{b.CA, b.FrontProxyCA, b.FrontProxyClient, b.Admin, b.User} {
		checkMode(t, p.KeyFile, 0o600)
		checkMode(t, p.CertFile, 0o644)
	}
	checkMode(t, b.ServiceAccountKey, 0o600)
	checkMode(t, b.ServiceAccountPub, 0o644)
	if !filepath.IsAbs(b.Dir) {
		t.Errorf("Dir %q is not absolute", b.Dir)
	}
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

func TestNewServiceAccountKeys(t *testing.T) {
	b := newBundle(t)
	keyPEM, err := os.ReadFile(b.ServiceAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := parsePrivateKeyPEM(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok || rsaKey.N.BitLen() != 2048 {
		t.Fatalf("service-account key is %T, want RSA 2048", key)
	}
	if err := checkServiceAccountKeys(b.ServiceAccountKey, b.ServiceAccountPub); err != nil {
		t.Fatal(err)
	}
}

func TestServingCert(t *testing.T) {
	b := newBundle(t)
	ip := net.ParseIP("127.77.1.11")
	p, err := b.ServingCert("apiserver-1", []string{"apiserver-1.skewcheck"}, []net.IP{ip, net.IPv6loopback})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(b.Dir, "apiserver-1.crt"); p.CertFile != want {
		t.Errorf("CertFile = %s, want %s", p.CertFile, want)
	}
	if want := filepath.Join(b.Dir, "apiserver-1.key"); p.KeyFile != want {
		t.Errorf("KeyFile = %s, want %s", p.KeyFile, want)
	}
	for _, name := range append(slices.Clone(inClusterDNSNames), "apiserver-1.skewcheck", "127.77.1.11", "::1") {
		opts := x509.VerifyOptions{DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if err := verify(t, p, b.CA, opts); err != nil {
			t.Errorf("verify for %q: %v", name, err)
		}
	}
	if err := verify(t, p, b.CA, x509.VerifyOptions{DNSName: "127.77.1.12"}); err == nil {
		t.Error("verifies for 127.77.1.12, an address it was not issued for")
	}
	if err := verify(t, p, b.CA, x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("serving certificate verifies for ClientAuth")
	}
	checkMode(t, p.KeyFile, 0o600)
	checkValidity(t, readCert(t, p.CertFile), leafValidity)
}

// TestHandshake puts the pieces together the way an apiserver and its
// clients do: the server presents a serving certificate and demands a client
// certificate from the cluster CA; the client trusts the CA and names the
// server kubernetes.default.svc, as peers do.
func TestHandshake(t *testing.T) {
	b := newBundle(t)
	serving, err := b.ServingCert("apiserver", nil, []net.IP{net.ParseIP("127.77.1.11")})
	if err != nil {
		t.Fatal(err)
	}
	serverPair, err := tls.LoadX509KeyPair(serving.CertFile, serving.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	clientPair, err := tls.LoadX509KeyPair(b.Admin.CertFile, b.Admin.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	cn, sn := net.Pipe()
	defer cn.Close()
	defer sn.Close()
	server := tls.Server(sn, &tls.Config{
		Certificates: []tls.Certificate{serverPair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool(t, b.CA),
	})
	client := tls.Client(cn, &tls.Config{
		Certificates: []tls.Certificate{clientPair},
		RootCAs:      pool(t, b.CA),
		ServerName:   "kubernetes.default.svc",
	})
	done := make(chan error, 1)
	go func() { done <- server.Handshake() }()
	if err := client.Handshake(); err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("server handshake: %v", err)
	}
	if got := server.ConnectionState().PeerCertificates[0].Subject.CommonName; got != AdminUser {
		t.Errorf("server saw client %q, want %q", got, AdminUser)
	}
}

func TestClientCert(t *testing.T) {
	b := newBundle(t)
	p, err := b.ClientCert("viewer", "alice", []string{"team-a", "team-b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(t, p, b.CA, x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatal(err)
	}
	c := readCert(t, p.CertFile)
	if c.Subject.CommonName != "alice" || !slices.Equal(c.Subject.Organization, []string{"team-a", "team-b"}) {
		t.Errorf("subject = %v, want CN=alice, O=team-a,team-b", c.Subject)
	}
	if _, err := b.ClientCert("nobody", "", nil); err == nil {
		t.Error("ClientCert with an empty user succeeded")
	}
}

func TestNamesRefused(t *testing.T) {
	b := newBundle(t)
	caBefore, err := os.ReadFile(b.CA.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", ".", "..", "ca", "admin", "sa", "front-proxy-ca", "../evil", "sub/dir"} {
		if _, err := b.ServingCert(name, nil, nil); err == nil {
			t.Errorf("ServingCert(%q) succeeded", name)
		}
		if _, err := b.ClientCert(name, "u", nil); err == nil {
			t.Errorf("ClientCert(%q) succeeded", name)
		}
	}
	caAfter, err := os.ReadFile(b.CA.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(caBefore) != string(caAfter) {
		t.Error("the CA certificate changed")
	}
	if _, err := b.ServingCert("bad-ip", nil, []net.IP{{1, 2, 3}}); err == nil {
		t.Error("ServingCert with a 3-byte IP succeeded")
	}
}

func TestLoad(t *testing.T) {
	b := newBundle(t)
	got, err := Load(b.Dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !reflect.DeepEqual(got, b) {
		t.Errorf("Load = %+v\nNew  = %+v", got, b)
	}
	// A loaded bundle issues certificates its CA verifies.
	p, err := got.ServingCert("late", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(t, p, b.CA, x509.VerifyOptions{DNSName: "kubernetes.default.svc"}); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRelative(t *testing.T) {
	b := newBundle(t)
	t.Chdir(filepath.Dir(b.Dir))
	got, err := Load(filepath.Base(b.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir != b.Dir {
		t.Errorf("Dir = %q, want absolute %q", got.Dir, b.Dir)
	}
}

func TestLoadMissing(t *testing.T) {
	b := newBundle(t)
	if err := os.Remove(b.User.KeyFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b.ServiceAccountPub); err != nil {
		t.Fatal(err)
	}
	_, err := Load(b.Dir)
	if err == nil {
		t.Fatal("Load succeeded with files missing")
	}
	for _, want := range []string{b.Dir, "user.key", "sa.pub"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	if _, err := Load(filepath.Join(t.TempDir(), "never-made")); err == nil {
		t.Error("Load of an empty directory succeeded")
	}
}

func TestLoadMismatched(t *testing.T) {
	b := newBundle(t)
	userKey, err := os.ReadFile(b.User.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.Admin.KeyFile, userKey, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(b.Dir)
	if err == nil || !strings.Contains(err.Error(), b.Admin.KeyFile) {
		t.Errorf("Load with admin's key replaced: err = %v, want one naming %s", err, b.Admin.KeyFile)
	}
}

func TestNewUnwritable(t *testing.T) {
	// A path below a regular file cannot be created, even by root, which
	// a read-only directory would not guarantee.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "pki")
	_, err := New(dir)
	if err == nil {
		t.Fatalf("New(%s) succeeded", dir)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("error %q does not mention %s", err, dir)
	}
}
