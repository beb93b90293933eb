package peerproxy

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leaseAndReviewServer is a stand-in apiserver for the proxy's own clients: it rejects every
// token (a little slowly, as a real review takes a round trip) and keeps one lease.
func leaseAndReviewServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var reviews atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/tokenreviews"):
			reviews.Add(1)
			time.Sleep(5 * time.Millisecond)
			var tr authnv1.TokenReview
			json.NewDecoder(r.Body).Decode(&tr)
			tr.Status = authnv1.TokenReviewStatus{Authenticated: false, Error: "invalid token"}
			json.NewEncoder(w).Encode(&tr)
		case strings.HasSuffix(r.URL.Path, "/leases"):
			json.NewEncoder(w).Encode(&coordinationv1.LeaseList{TypeMeta: metav1.TypeMeta{Kind: "LeaseList", APIVersion: "coordination.k8s.io/v1"}})
		case r.Method == http.MethodPut:
			w.Header().Set("Content-Type", r.Header.Get("Content-Type")) // the lease as sent, JSON or protobuf
			io.Copy(w, r.Body)
		default:
			l := lease("skewcheck-peerproxy-flooded", "", time.Now(), 3600)
			l.Kind, l.APIVersion = "Lease", "coordination.k8s.io/v1"
			json.NewEncoder(w).Encode(l)
		}
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &reviews
}

// writeKeyPair writes srv's certificate and key as PEM files: the CA the proxy trusts and
// a client certificate for its control identity (the stand-in does not check it).
func writeKeyPair(t *testing.T, srv *httptest.Server) (certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	key, err := x509.MarshalPKCS8PrivateKey(srv.TLS.Certificates[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
	return certFile, keyFile
}

// 1000 requests with random bearer tokens queue up 1000 token reviews, several seconds of
// the reviews client's rate limit. The lease renewal and the peer sync have clients of
// their own and go through at once.
func TestTokenFloodDelaysNeitherLeaseNorSync(t *testing.T) {
	srv, reviews := leaseAndReviewServer(t)
	certFile, keyFile := writeKeyPair(t, srv)
	c, err := newClients(Config{ID: "flooded", APIServer: srv.URL, ServerCA: certFile, ServerName: "example.com", ControlCert: certFile, ControlKey: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	a := newAuthenticator(c.reviews)
	r := &registry{id: "flooded", localURL: srv.URL, client: c.sync, leaseClient: c.lease}

	// Connections are open before the flood, as in a proxy that has been running.
	ctx := context.Background()
	if err := r.renew(ctx); err != nil {
		t.Fatal(err)
	}
	listLeases := func() error {
		_, err := r.client.CoordinationV1().Leases(LeaseNamespace).List(ctx, metav1.ListOptions{})
		return err
	}
	if err := listLeases(); err != nil {
		t.Fatal(err)
	}

	flood, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 1000 {
		wg.Go(func() { a.Authenticate(flood, bearer(fmt.Sprint("random-token-", i))) })
	}
	defer func() { stop(); wg.Wait() }()
	for reviews.Load() < 150 { // the reviews client's burst is spent: the rest wait their turn
		time.Sleep(10 * time.Millisecond)
	}

	// Behind the reviews' rate limit, the renewal and the sync would wait for the whole
	// queue, about 8 s; on clients of their own they go through with most reviews still
	// waiting. Counting reviews, not seconds, keeps the test true on a loaded machine.
	start := time.Now()
	if err := r.renew(ctx); err != nil {
		t.Fatalf("renewing the lease during a flood of token reviews: %v", err)
	}
	if err := listLeases(); err != nil {
		t.Fatalf("listing the peers' leases during a flood of token reviews: %v", err)
	}
	if n := reviews.Load(); n > 700 {
		t.Errorf("the lease renewal and the peer sync waited %v, for %d of the 1000 token reviews: they queue behind them", time.Since(start), n)
	}
}
