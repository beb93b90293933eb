package peerproxy

import (
	"crypto/x509"
	"net/http"
	"testing"
	"time"
)

// A lease can point a proxy anywhere. Identity headers and bodies go only over TLS to a
// server whose certificate the cluster CA signed for the apiservers' name: a peer at an
// http:// URL, or at an https one with any other certificate, gets no request at all, and
// the client gets 503.
func TestIdentityGoesOnlyToVerifiedPeers(t *testing.T) {
	plain := newBackend(t, "plaintext peer")
	untrusted := newTLSPeer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a peer whose certificate the proxy does not trust got a request as %q", r.Header.Get("X-Remote-User"))
	})
	for name, peer := range map[string]struct {
		url       string
		transport http.RoundTripper
	}{
		"http":                {plain.URL, httpsOnly{transport(x509.NewCertPool(), "example.com", nil, time.Second, false)}},
		"untrusted https":     {untrusted.URL(), httpsOnly{transport(x509.NewCertPool(), "example.com", nil, time.Second, false)}},
		"wrong name on https": {untrusted.URL(), httpsOnly{transport(untrusted.cas, "kubernetes.default.svc", nil, time.Second, false)}},
	} {
		p := testProxy(t, refusedURL(t), peer.url)
		p.identity = peer.transport
		p.reg.peers = map[string]view{"peer": {id: "peer", url: peer.url, served: set("batch/v1/jobs")}}
		if w := get(p, "/apis/batch/v1/jobs"); w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: answer %d %q, want 503", name, w.Code, w.Body)
		}
	}
	if n := len(plain.requests()); n != 0 {
		t.Errorf("the plaintext peer got %d requests", n)
	}
}
