package peerproxy

import (
	"crypto/x509"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
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

func TestPeerURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://10.0.0.1:6443":  "https://10.0.0.1:6443",
		"https://10.0.0.1:6443/": "https://10.0.0.1:6443",
		"https://[fd00::1]:6443": "https://[fd00::1]:6443",
		// A zone is escaped again, or the URL the proxy dials does not parse (FuzzPeerURL).
		"https://[fe80::1%25eth0]:6443": "https://[fe80::1%25eth0]:6443",
		"https://apiserver.example":     "https://apiserver.example",
		"":                              "",
		"http://10.0.0.1:6443":          "",
		"10.0.0.1:6443":                 "",
		"https://":                      "",
		"https://:6443":                 "",
		"https://u:p@10.0.0.1:6443":     "",
		"https://10.0.0.1:6443/proxy":   "",
		"https://10.0.0.1:6443?x=1":     "",
		"https://10.0.0.1:6443#x":       "",
		"https://10.0.0.1:6443/%zz":     "",
	} {
		got, err := peerURL(raw)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("peerURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

// However the proxy is configured for its peers, a configuration that would not verify a
// peer's certificate is never used to reach one.
func TestPeerConfigVerifiesOrRefuses(t *testing.T) {
	for name, cfg := range map[string]rest.Config{
		"no CA":         {},
		"insecure":      {TLSClientConfig: rest.TLSClientConfig{Insecure: true, CAFile: "ca.crt"}},
		"own transport": {Transport: http.DefaultTransport, TLSClientConfig: rest.TLSClientConfig{CAFile: "ca.crt"}},
	} {
		r := &registry{peerCfg: func(url string) *rest.Config { c := cfg; c.Host = url; return &c }}
		if _, err := r.peerConfig("https://10.0.0.1:6443"); err == nil {
			t.Errorf("%s: a peer configuration that does not verify was used", name)
		}
	}
	r := &registry{peerCfg: func(url string) *rest.Config {
		return controlConfig(Config{ServerCA: "ca.crt", ServerName: "kubernetes.default.svc"}, url)
	}}
	cfg, err := r.peerConfig("https://10.0.0.1:6443/")
	if err != nil || cfg.Host != "https://10.0.0.1:6443" || cfg.ServerName != "kubernetes.default.svc" || cfg.CAFile != "ca.crt" {
		t.Errorf("the proxy's own peer configuration: %+v, %v; want https://10.0.0.1:6443 verified by ca.crt as kubernetes.default.svc", cfg, err)
	}
}
