package faults

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/framework"
)

// certServer serves TLS with the pair in p, read from disk on every handshake when reload
// (as kube-apiserver's serving controller does, only faster), or once at start.
func certServer(t *testing.T, p pki.Pair, reload bool) string {
	t.Helper()
	first, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		if !reload {
			return &first, nil
		}
		c, err := tls.LoadX509KeyPair(p.CertFile, p.KeyFile)
		return &c, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	s := &http.Server{Handler: http.NotFoundHandler()}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return l.Addr().String()
}

// certsFixture is a bundle, a server's serving pair and its files as a node declares them.
func certsFixture(t *testing.T, reload bool) node.CertFiles {
	t.Helper()
	b, err := pki.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	serving, err := b.ServingCert("apiserver-2", nil, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	peerCA := t.TempDir() + "/peer-ca.crt"
	ca, _ := os.ReadFile(b.CA.CertFile)
	if err := os.WriteFile(peerCA, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	return node.CertFiles{Serving: serving, ServingCA: b.CA, ServingAt: certServer(t, serving, reload),
		ProxyClient: b.FrontProxyClient, ProxyClientCA: b.FrontProxyCA, PeerCA: peerCA}
}

func contents(t *testing.T, paths ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func sameContents(a, b [][]byte) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// Each certificate fault replaces its files while injected, and heal puts back exactly
// what was there; the serving faults return only once the server serves what is on disk.
func TestCertFaultsReplaceAndRestore(t *testing.T) {
	ctx := context.Background()
	c := certsFixture(t, true)
	for _, tc := range []struct {
		f     Fault
		files []string
	}{
		{RotateServing("apiserver-2", c), pairFiles(c.Serving)},
		{ExpiredServing("apiserver-2", c, nil), pairFiles(c.Serving)},
		{RotateProxyClient("apiserver-1", c), pairFiles(c.ProxyClient)},
		{PeerCAReplaced("apiserver-1", c), []string{c.PeerCA}},
	} {
		before := contents(t, tc.files...)
		mode, _ := os.Stat(tc.files[0])
		heal, err := Inject(ctx, tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.f.Name(), err)
		}
		if sameContents(before, contents(t, tc.files...)) {
			t.Errorf("%s: the files did not change", tc.f.Name())
		}
		if strings.HasSuffix(tc.f.Name(), "-serving") {
			served, err := servedCertDER(ctx, c.ServingAt)
			want, _ := firstCertDER(c.Serving.CertFile)
			if err != nil || !bytes.Equal(served, want) {
				t.Errorf("%s: injected, but the server does not serve the new certificate (%v)", tc.f.Name(), err)
			}
		}
		if err := heal(ctx); err != nil {
			t.Fatalf("%s: heal: %v", tc.f.Name(), err)
		}
		if !sameContents(before, contents(t, tc.files...)) {
			t.Errorf("%s: heal did not restore the original files", tc.f.Name())
		}
		if after, _ := os.Stat(tc.files[0]); after.Mode() != mode.Mode() {
			t.Errorf("%s: %s's mode %v became %v", tc.f.Name(), tc.files[0], mode.Mode(), after.Mode())
		}
	}
}

// A server that never reloads its certificate fails the serving faults' injection, with
// the files put back: the fault never stands half-made.
func TestServingFaultOnAServerThatNeverReloads(t *testing.T) {
	defer func(d time.Duration) { servedWithin = d }(servedWithin)
	servedWithin = 500 * time.Millisecond
	c := certsFixture(t, false)
	before := contents(t, pairFiles(c.Serving)...)
	_, err := Inject(context.Background(), ExpiredServing("apiserver-2", c, nil))
	if err == nil || !strings.Contains(err.Error(), "does it reload") {
		t.Errorf("inject on a server that never reloads: %v", err)
	}
	if !sameContents(before, contents(t, pairFiles(c.Serving)...)) {
		t.Error("a failed injection left the files replaced")
	}
}

// certSidecar is a proxy in front of a server that declares its client certificate.
type certSidecar struct{ pair pki.Pair }

func (certSidecar) Running() bool                      { return true }
func (certSidecar) StartSidecar(context.Context) error { return nil }
func (certSidecar) StopSidecar(bool)                   {}
func (s certSidecar) ProxyClientFiles() pki.Pair       { return s.pair }

// Behind a front, the serving faults act on the apiserver's certificate; the proxy client
// faults only where the front declares its certificate; a peer CA file never (the front's
// is its own business): those are Missing, named, and skipped.
func TestCertFaultsBehindAFront(t *testing.T) {
	cluster := localCluster()
	var plain, declaring []*framework.Endpoint
	for _, e := range cluster {
		s := e.Node.(*local.Server)
		plain = append(plain, &framework.Endpoint{Name: e.Name, Node: local.NewFronted(s, nil)})
		declaring = append(declaring, &framework.Endpoint{Name: e.Name, Node: local.NewFronted(s, certSidecar{pki.Pair{CertFile: "ref.crt", KeyFile: "ref.key"}})})
	}
	for name, want := range map[string]Capability{"rotate-serving": "", "expired-serving": "", "rotate-proxy-client": ProxyClientCert, "peer-ca-replaced": PeerCAFile} {
		_, err := ByName(name, NewSubject(plain, plain[1], plain[0]))
		var missing *Missing
		if want == "" && err != nil || want != "" && (!errors.As(err, &missing) || missing.Capability != want) {
			t.Errorf("%s behind a plain front: %v; want Missing %q", name, err, want)
		}
	}
	f, err := ByName("rotate-proxy-client", NewSubject(declaring, declaring[1], declaring[0]))
	if err != nil || !strings.Contains(f.Description(), "ref.crt") {
		t.Errorf("rotate-proxy-client behind a front that declares its certificate: %v, %v", f, err)
	}
	if _, err := ByName("peer-ca-replaced", NewSubject(declaring, declaring[1], declaring[0])); err == nil {
		t.Error("peer-ca-replaced behind a front: no Missing")
	}
}
