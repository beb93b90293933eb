package peerproxy

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/skewcheck/skewcheck/clusters/pki"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Anyone who may create Leases in kube-system (leader-election clients among them) can
// write a lease that looks like a peer's. These tests run sync as a proxy runs it (the
// configuration Start builds) with such leases among real ones.

// pkiFor is a control plane's certificates: every apiserver's serving certificate is
// signed by its CA for kubernetes.default.svc, the name peers verify.
func pkiFor(t *testing.T) *pki.Bundle {
	t.Helper()
	b, err := pki.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// servingCert issues a serving certificate from b (SANs kubernetes.default.svc and the
// other in-cluster names).
func servingCert(t *testing.T, b *pki.Bundle, name string) *tls.Certificate {
	t.Helper()
	pair, err := b.ServingCert(name, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(pair.CertFile, pair.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	return &cert
}

// discoveryHandler answers /apis and /api with aggregated discovery v2 and counts requests.
func discoveryHandler(apis, core *apidiscoveryv2.APIGroupDiscoveryList, hits *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var l *apidiscoveryv2.APIGroupDiscoveryList
		switch r.URL.Path {
		case "/apis":
			l = apis
		case "/api":
			l = core
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", discovery.AggregatedV2)
		json.NewEncoder(w).Encode(l)
	})
}

// tlsDiscoveryServer serves discovery over TLS with cert (nil: httptest's own).
func tlsDiscoveryServer(t *testing.T, cert *tls.Certificate, apis, core *apidiscoveryv2.APIGroupDiscoveryList) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(discoveryHandler(apis, core, &hits))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point, not news
	if cert != nil {
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{*cert}}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &hits
}

// proxyUnderTest is a registry wired as Start wires it, for a control plane whose CA is
// b, fronting local; leases are what kube-system holds.
func proxyUnderTest(t *testing.T, b *pki.Bundle, local string, leases ...runtime.Object) *registry {
	t.Helper()
	cfg := Config{ID: "self", APIServer: local, ServerCA: b.CA.CertFile, ServerName: "kubernetes.default.svc",
		ControlCert: b.Admin.CertFile, ControlKey: b.Admin.KeyFile}
	cs := fake.NewClientset(leases...)
	return newRegistry(cfg, clients{sync: cs, lease: cs}, newMetrics())
}

func createdAt(l *coordinationv1.Lease, at time.Time) *coordinationv1.Lease {
	l.CreationTimestamp = metav1.NewTime(at)
	return l
}

func peerIDs(r *registry) []string {
	_, peers := r.views()
	var ids []string
	for _, p := range peers {
		ids = append(ids, p.id)
	}
	return ids
}

var (
	coreList  = list(group("", ver("v1", res("pods"))))
	localAPIs = list(group("apps", ver("v1", res("deployments"))))
	peerAPIs  = list(group("batch", ver("v1", res("jobs"))))
	// what a hostile server claims, to be routed to and merged into /apis
	injected = list(group("evil.example.com", ver("v1", res("things"))))
)

// A lease at an http:// URL or at an https one whose certificate the cluster's CA did not
// sign for kubernetes.default.svc is not a peer: its server gets no request (not even the
// discovery read), and what it claims to serve is neither routed to nor merged.
func TestSyncRefusesPeersThatDoNotVerify(t *testing.T) {
	cluster, rogueCA := pkiFor(t), pkiFor(t)
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), localAPIs, coreList)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), peerAPIs, coreList)
	var plainHits atomic.Int32
	plain := httptest.NewServer(discoveryHandler(injected, coreList, &plainHits))
	t.Cleanup(plain.Close)
	otherCA, otherHits := tlsDiscoveryServer(t, servingCert(t, rogueCA, "rogue"), injected, coreList)
	selfSigned, selfHits := tlsDiscoveryServer(t, nil, injected, coreList) // httptest's own certificate

	now := time.Now()
	r := proxyUnderTest(t, cluster, localSrv.URL,
		lease("skewcheck-peerproxy-peer", peer.URL, now, 3600),
		lease("skewcheck-peerproxy-plaintext", plain.URL, now, 3600),
		lease("skewcheck-peerproxy-other-ca", otherCA.URL, now, 3600),
		lease("skewcheck-peerproxy-self-signed", selfSigned.URL, now, 3600),
		lease("skewcheck-peerproxy-userinfo", "https://admin:secret@"+peer.Listener.Addr().String(), now, 3600),
		lease("skewcheck-peerproxy-no-url", "", now, 3600),
	)
	var badURL, overCap int
	r.onIgnored = func(b, o int) { badURL, overCap = b, o }
	r.sync(context.Background())

	if badURL != 3 || overCap != 0 {
		t.Errorf("leases ignored: %d for their URL, %d over the cap; want 3 (plaintext, userinfo, no URL) and 0", badURL, overCap)
	}
	if got, want := peerIDs(r), []string{"skewcheck-peerproxy-peer"}; !reflect.DeepEqual(got, want) {
		t.Errorf("peers %v, want only %v", got, want)
	}
	if got := r.capablePeers("evil.example.com/v1/things"); got != nil {
		t.Errorf("a resource only hostile leases' servers claim is routed to %v", got)
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("capablePeers(batch/v1/jobs) = %v, want [%s]", got, peer.URL)
	}
	for name, hits := range map[string]*atomic.Int32{"plaintext": &plainHits, "other CA": otherHits, "self-signed": selfHits} {
		if n := hits.Load(); n != 0 {
			t.Errorf("the %s server got %d requests", name, n)
		}
	}
	// The lease is renewed only through verified peers' apiservers too.
	for _, via := range r.renewVia() {
		if via.url != localSrv.URL && via.url != peer.URL {
			t.Errorf("the lease would be written through %s", via.url)
		}
	}
}

// A flood of leases, even at URLs whose certificates verify (more addresses of a real
// apiserver), makes at most maxPeers peers; peers known before the flood keep their place.
func TestSyncCapsThePeers(t *testing.T) {
	cluster := pkiFor(t)
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), localAPIs, coreList)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), peerAPIs, coreList)

	var floodHits atomic.Int32
	flood := &http.Server{Handler: discoveryHandler(injected, coreList, &floodHits),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{*servingCert(t, cluster, "flood")}}}
	t.Cleanup(func() { flood.Close() })
	start := time.Now().Add(-time.Hour)
	objs := []runtime.Object{createdAt(lease("skewcheck-peerproxy-peer", peer.URL, time.Now(), 3600), start)}
	const floodSize = 100
	for i := range floodSize {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go flood.ServeTLS(l, "", "")
		// Named to sort before the real peer: names decide nothing.
		objs = append(objs, createdAt(lease(fmt.Sprintf("a-flood-%03d", i), "https://"+l.Addr().String(), time.Now(), 3600), start.Add(time.Minute)))
	}
	r := proxyUnderTest(t, cluster, localSrv.URL, objs...)
	var overCap int
	r.onIgnored = func(_, o int) { overCap = o }
	r.sync(context.Background())

	ids := peerIDs(r)
	if overCap != floodSize+1-maxPeers {
		t.Errorf("%d leases counted over the cap, want %d", overCap, floodSize+1-maxPeers)
	}
	if len(ids) > maxPeers {
		t.Errorf("%d peers after a flood of %d leases, want at most %d", len(ids), floodSize, maxPeers)
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("the peer whose lease predates the flood: capablePeers(batch/v1/jobs) = %v, want [%s]", got, peer.URL)
	}
	if n := floodHits.Load(); n > 2*maxPeers {
		t.Errorf("one sync sent %d discovery requests to the flood's servers, want at most %d (two per peer)", n, 2*maxPeers)
	}
	if n := len(r.renewVia()); n > maxPeers+1 {
		t.Errorf("the lease would be written through %d apiservers, want at most %d", n, maxPeers+1)
	}
}

// A flood of leases at addresses that accept connections and never answer (as a frozen or
// black-holed host does) must not hold a sync for a fetch timeout per lease: the real
// peer is found within one sync of a few seconds.
func TestSyncIsNotHeldUpBySilentLeases(t *testing.T) {
	cluster := pkiFor(t)
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), localAPIs, coreList)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), peerAPIs, coreList)
	// The peer's lease is older than the flood's, as a running control plane's is.
	objs := []runtime.Object{createdAt(lease("skewcheck-peerproxy-peer", peer.URL, time.Now(), 3600), time.Now().Add(-time.Hour))}
	for i := range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0") // never accepted: the TLS handshake never ends
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		objs = append(objs, createdAt(lease(fmt.Sprintf("a-silent-%03d", i), "https://"+l.Addr().String(), time.Now(), 3600), time.Now()))
	}
	r := proxyUnderTest(t, cluster, localSrv.URL, objs...)
	done := make(chan struct{})
	start := time.Now()
	go func() { r.sync(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("one sync with 50 silent leases still runs after %v (the fetches wait one after another)", time.Since(start))
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("capablePeers(batch/v1/jobs) = %v, want [%s]", got, peer.URL)
	}
	t.Logf("one sync with 50 silent leases took %v", time.Since(start))
}

// A flood of leases older than a new peer's, at servers that answer TLS with a certificate
// the cluster CA did not sign, must not keep the new peer out: before the fix the oldest
// maxPeers leases were read at every sync, failed every time, and the newer peer was never
// read. A lease whose read failed now waits behind those not yet tried.
func TestSyncFloodOfOlderUnverifiedLeasesLetsANewPeerIn(t *testing.T) {
	cluster, rogueCA := pkiFor(t), pkiFor(t)
	localSrv, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "local"), localAPIs, coreList)
	peer, _ := tlsDiscoveryServer(t, servingCert(t, cluster, "peer"), peerAPIs, coreList)

	var floodHits atomic.Int32
	flood := &http.Server{Handler: discoveryHandler(injected, coreList, &floodHits), ErrorLog: log.New(io.Discard, "", 0),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{*servingCert(t, rogueCA, "flood")}}}
	t.Cleanup(func() { flood.Close() })
	const floodSize = maxPeers + 8
	objs := []runtime.Object{createdAt(lease("skewcheck-peerproxy-peer", peer.URL, time.Now(), 3600), time.Now())}
	for i := range floodSize {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go flood.ServeTLS(l, "", "")
		objs = append(objs, createdAt(lease(fmt.Sprintf("z-flood-%03d", i), "https://"+l.Addr().String(), time.Now(), 3600), time.Now().Add(-time.Hour)))
	}
	r := proxyUnderTest(t, cluster, localSrv.URL, objs...)

	// Each sync tries maxPeers leases: the flood's first maxPeers, then the rest and the peer.
	syncs := floodSize/maxPeers + 1
	for range syncs {
		r.sync(context.Background())
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("after %d syncs with %d older unverifiable leases: capablePeers(batch/v1/jobs) = %v, want [%s]", syncs, floodSize, got, peer.URL)
	}
	if got, want := peerIDs(r), []string{"skewcheck-peerproxy-peer"}; !reflect.DeepEqual(got, want) {
		t.Errorf("peers %v, want only %v", got, want)
	}
	if n := floodHits.Load(); n != 0 {
		t.Errorf("the flood's servers got %d requests past the TLS handshake", n)
	}

	// Once verified, the peer keeps its place while the flood goes on failing.
	for range 3 {
		r.sync(context.Background())
	}
	if got := r.capablePeers("batch/v1/jobs"); !reflect.DeepEqual(got, []string{peer.URL}) {
		t.Errorf("the verified peer left while the flood failed: capablePeers(batch/v1/jobs) = %v", got)
	}
}
