package peerproxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/skewcheck/skewcheck/reference/internal/authn"

	"github.com/skewcheck/skewcheck/reference/internal/wire"
)

// sentRequest is one request the proxy sent: where, over which transport (identity: the
// front-proxy certificate; anon: none), with which headers.
type sentRequest struct {
	host, transport string
	header          http.Header
}

// recordingTransport answers every request 200 and records it in sent.
type recordingTransport struct {
	name string
	mu   *sync.Mutex
	sent *[]sentRequest
}

func (rt recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	*rt.sent = append(*rt.sent, sentRequest{host: r.URL.Host, transport: rt.name, header: r.Header.Clone()})
	rt.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

// FuzzServeHTTP sends the proxy whatever a client may send (method, path and query,
// headers) and checks, for every request it forwards:
//   - a request a peer already forwarded (marked) never goes to a peer again, and one that
//     goes to a peer is marked (TestServeHTTPRouting: "already proxied by a peer",
//     "peer-only resource");
//   - the identity headers that arrive are the authenticated user's, never the client's,
//     and no Authorization goes on; an anonymous client goes over the transport without
//     the proxy's certificate (TestServeHTTPRouting: "claimed identity is dropped",
//     "peer-only resource, anonymous");
//   - a Connection header naming the proxy's headers is refused 400 and nothing is sent
//     (TestServeHTTPRefusesConnectionNamingIdentityHeaders);
//   - a rejected token is 401 and nothing is sent (TestServeHTTPRejectedTokenIs401).
func FuzzServeHTTP(f *testing.F) {
	for _, seed := range []struct{ method, target, header string }{
		{"GET", "/api/v1/namespaces/ns/pods", "Authorization: Bearer good"},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs/j", "Authorization: Bearer good"},
		{"POST", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer good\r\nContent-Length: 0"},
		{"GET", "/apis/batch/v1/jobs", ""},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer good\r\nX-Kubernetes-Peer-Proxied: true"},
		{"GET", "/apis/batch/v1/watch/jobs?watch=1", "x-kubernetes-peer-proxied: 1"},
		{"GET", "/apis/batch/v1", "Authorization: Bearer good"},
		{"GET", "/apis/batch/v1/", ""},
		{"GET", "/apis", "Authorization: Bearer good\r\nAccept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"},
		{"GET", "/apis", "Authorization: Bearer good\r\nAccept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer"},
		{"GET", "/apis", "Authorization: Bearer good"},
		{"GET", "/version", "Authorization: Bearer good"},
		{"GET", "/apis/batch/v1/jobs", "X-Remote-User: mallory\r\nX-Remote-Group: system:masters"},
		{"GET", "/apis/batch/v1/jobs", "Authorization: Bearer good\r\nx-remote-extra-scopes: all\r\nImpersonate-User: alice"},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer good\r\nConnection: X-Remote-User, X-Remote-Group, X-Kubernetes-Peer-Proxied"},
		{"POST", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer good\r\nConnection: Impersonate-User\r\nImpersonate-User: alice"},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer good\r\nConnection: Authorization"},
		{"GET", "/api/v1/namespaces/ns/pods/p/exec?command=true&stdout=true", "Authorization: Bearer good\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1"},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Bearer bad"},
		{"GET", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: bearer  good "},
		{"DELETE", "/apis/batch/v1/namespaces/ns/jobs", "Authorization: Basic eDp5"},
		{"GET", "http://evil.test/apis/batch/v1/jobs", "Authorization: Bearer good"},
		{"GET", "/apis/example.com/v1/widgets", "Authorization: Bearer good"},
	} {
		f.Add(seed.method, seed.target, seed.header)
	}
	const localHost, peerHost = "local.test", "peer.test"
	var mu sync.Mutex
	var sent []sentRequest
	identity := recordingTransport{name: "identity", mu: &mu, sent: &sent}
	anon := recordingTransport{name: "anon", mu: &mu, sent: &sent}
	p := &Proxy{cfg: Config{APIServer: "https://" + localHost}, metrics: newMetrics(),
		identity: identity, identityUpgrade: identity, anon: anon, anonUpgrade: anon,
		auth: &authn.Authenticator{Review: func(_ context.Context, token string) (*authn.User, error) {
			if token == "good" {
				return &authn.User{Name: "bob", UID: "u1", Groups: []string{"devs", authn.AuthenticatedGroup}}, nil
			}
			return nil, nil
		}}}
	p.reg = &registry{
		local: view{id: "local", url: "https://" + localHost, served: set("core/v1/pods", "apps/v1/deployments"),
			apis: list(group("apps", ver("v1", res("deployments"))))},
		peers: map[string]view{"peer": {id: "peer", url: "https://" + peerHost, served: set("core/v1/pods", "batch/v1/jobs"),
			apis: list(group("apps", ver("v1", res("deployments"))), group("batch", ver("v1", res("jobs"))))}},
	}
	bob := http.Header{"X-Remote-User": {"bob"}, "X-Remote-Uid": {"u1"}, "X-Remote-Group": {"devs", authn.AuthenticatedGroup}}
	f.Fuzz(func(t *testing.T, method, target, header string) {
		r, ok := wire.Request(method, target, header, "proxy.test")
		if !ok {
			return
		}
		in := r.Header.Clone()
		mu.Lock()
		sent = nil
		mu.Unlock()
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		mu.Lock()
		out := sent
		mu.Unlock()

		// Who the client is, as a bearer token says (the proxy reviews exactly that token).
		scheme, token, _ := strings.Cut(in.Get("Authorization"), " ")
		token = strings.TrimSpace(token)
		bearer := strings.EqualFold(scheme, "bearer") && token != ""
		switch {
		case wire.ConnectionNames(in, "X-Remote-", "Impersonate-", headerMarked):
			if w.Code != http.StatusBadRequest || len(out) != 0 {
				t.Fatalf("Connection %q names the proxy's headers: answer %d after %d requests sent, want 400 and none", in.Values("Connection"), w.Code, len(out))
			}
			return
		case bearer && token != "good":
			if w.Code != http.StatusUnauthorized || len(out) != 0 {
				t.Fatalf("a rejected token: answer %d after %d requests sent, want 401 and none", w.Code, len(out))
			}
			return
		}
		want, transport := http.Header{}, "anon"
		if bearer {
			want, transport = bob, "identity"
		}
		marked := in.Get(headerMarked) != ""
		for _, s := range out {
			if s.host != localHost && s.host != peerHost {
				t.Fatalf("%s %s went to %q, neither the local apiserver nor the peer", method, target, s.host)
			}
			if s.host == peerHost && marked {
				t.Fatalf("%s %s was marked %s by a peer, and went to a peer again", method, target, headerMarked)
			}
			if s.host == peerHost && s.header.Get(headerMarked) != "true" {
				t.Fatalf("%s %s went to the peer without %s: true (%v)", method, target, headerMarked, s.header)
			}
			claimed := http.Header{}
			for k, vs := range s.header {
				lk := strings.ToLower(k)
				if lk == "authorization" {
					t.Fatalf("%s %s: the client's %s went on: %v", method, target, k, s.header)
				}
				if strings.HasPrefix(lk, "x-remote-") {
					claimed[k] = vs
				}
			}
			if !reflect.DeepEqual(claimed, want) || s.transport != transport {
				t.Fatalf("%s %s with headers %v arrived as %v over the %s transport, want %v over %s", method, target, in, claimed, s.transport, want, transport)
			}
		}
	})
}
