package peerproxy

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

func TestFail(t *testing.T) {
	tests := []struct {
		code       int
		reason     string
		retryAfter string
	}{
		{http.StatusServiceUnavailable, "ServiceUnavailable", "1"},
		{http.StatusInternalServerError, "InternalError", ""},
		{http.StatusNotFound, "NotFound", ""},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			p := &Proxy{metrics: newMetrics()}
			w := httptest.NewRecorder()
			p.fail(w, tt.code, tt.reason, "because")
			if w.Code != tt.code {
				t.Errorf("code %d, want %d", w.Code, tt.code)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			if ra := w.Header().Get("Retry-After"); ra != tt.retryAfter {
				t.Errorf("Retry-After %q, want %q", ra, tt.retryAfter)
			}
			var s metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
				t.Fatalf("body %q is not a Status: %v", w.Body, err)
			}
			want := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
				Code: int32(tt.code), Reason: metav1.StatusReason(tt.reason), Message: "because"}
			if !reflect.DeepEqual(s, want) {
				t.Errorf("Status %+v, want %+v", s, want)
			}
		})
	}
}

// backend is a stand-in apiserver that records what reached it.
type backend struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newBackend(t *testing.T, name string) *backend {
	t.Helper()
	b := &backend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.reqs = append(b.reqs, r.Clone(r.Context()))
		b.mu.Unlock()
		w.Header().Set("X-Backend", name)
		io.WriteString(w, name)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *backend) requests() []*http.Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*http.Request(nil), b.reqs...)
}

func set(keys ...string) discovery.Set {
	s := discovery.Set{}
	for _, k := range keys {
		parts := strings.Split(k, "/")
		g := discovery.GVR{Group: parts[0], Version: parts[1], Resource: parts[2]}
		if g.Group == "core" {
			g.Group = ""
		}
		s[k] = g
	}
	return s
}

// testProxy fronts local with one peer; bearer token "good" is bob, anything else is rejected.
func testProxy(t *testing.T, localURL, peerURL string) *Proxy {
	t.Helper()
	cs, _ := reviewer(t, map[string]authnv1.UserInfo{"good": {Username: "bob", UID: "u1", Groups: []string{"devs"}}}, nil)
	p := &Proxy{
		cfg:      Config{APIServer: localURL, PeerTimeout: 500 * time.Millisecond},
		auth:     newAuthenticator(cs),
		metrics:  newMetrics(),
		identity: http.DefaultTransport,
		anon:     http.DefaultTransport,
		// The stand-in apiservers speak plain HTTP/1.1, which upgrades over too.
		identityUpgrade: http.DefaultTransport,
		anonUpgrade:     http.DefaultTransport,
	}
	p.reg = &registry{
		local: view{id: "local", url: localURL, served: set("core/v1/pods", "apps/v1/deployments"),
			apis: list(group("apps", ver("v1", res("deployments"))))},
		peers: map[string]view{"peer": {id: "peer", url: peerURL, served: set("core/v1/pods", "batch/v1/jobs"),
			apis: list(group("apps", ver("v1", res("deployments"))), group("batch", ver("v1", res("jobs"))))}},
	}
	return p
}

func routed(t *testing.T, p *Proxy) map[string]float64 {
	t.Helper()
	mfs, err := p.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, l := range m.GetLabel() {
				name += "/" + l.GetValue()
			}
			out[name] = m.GetCounter().GetValue()
		}
	}
	return out
}

func TestServeHTTPRouting(t *testing.T) {
	tests := []struct {
		name, method, path string
		header             http.Header
		wantBackend        string // "local" or "peer"
		wantUser           string // X-Remote-User at the backend, "" for none
		wantMarked         bool
	}{
		{name: "local resource", method: "GET", path: "/api/v1/namespaces/ns/pods",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "local", wantUser: "bob"},
		{name: "peer-only resource", method: "GET", path: "/apis/batch/v1/namespaces/ns/jobs/j",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "peer", wantUser: "bob", wantMarked: true},
		{name: "peer-only resource, write", method: "POST", path: "/apis/batch/v1/namespaces/ns/jobs",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "peer", wantUser: "bob", wantMarked: true},
		{name: "peer-only resource, anonymous", method: "GET", path: "/apis/batch/v1/jobs",
			wantBackend: "peer", wantMarked: true},
		{name: "already proxied by a peer", method: "GET", path: "/apis/batch/v1/namespaces/ns/jobs",
			header: http.Header{"Authorization": {"Bearer good"}, "X-Kubernetes-Peer-Proxied": {"true"}}, wantBackend: "local", wantUser: "bob", wantMarked: true},
		{name: "served by nobody", method: "GET", path: "/apis/example.com/v1/widgets",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "local", wantUser: "bob"},
		{name: "non-resource", method: "GET", path: "/version",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "local", wantUser: "bob"},
		{name: "group-version document only a peer serves", method: "GET", path: "/apis/batch/v1",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "peer", wantUser: "bob", wantMarked: true},
		{name: "group-version document only a peer serves, anonymous", method: "GET", path: "/apis/batch/v1/",
			wantBackend: "peer", wantMarked: true},
		{name: "group-version document only a peer serves, already proxied", method: "GET", path: "/apis/batch/v1",
			header: http.Header{"Authorization": {"Bearer good"}, "X-Kubernetes-Peer-Proxied": {"true"}}, wantBackend: "local", wantUser: "bob", wantMarked: true},
		{name: "group-version document both serve alike", method: "GET", path: "/apis/apps/v1",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "local", wantUser: "bob"},
		{name: "group-version document nobody serves", method: "GET", path: "/apis/example.com/v1",
			header: http.Header{"Authorization": {"Bearer good"}}, wantBackend: "local", wantUser: "bob"},
		{name: "claimed identity is dropped", method: "GET", path: "/apis/batch/v1/jobs",
			header: http.Header{"X-Remote-User": {"mallory"}, "X-Remote-Group": {"system:masters"}}, wantBackend: "peer", wantMarked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local, peer := newBackend(t, "local"), newBackend(t, "peer")
			p := testProxy(t, local.URL, peer.URL)
			r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(""))
			for k, vs := range tt.header {
				r.Header[k] = vs
			}
			w := httptest.NewRecorder()
			p.ServeHTTP(w, r)
			if w.Code != http.StatusOK || w.Body.String() != tt.wantBackend {
				t.Fatalf("answer %d %q, want 200 from %s", w.Code, w.Body, tt.wantBackend)
			}
			b, other := local, peer
			if tt.wantBackend == "peer" {
				b, other = peer, local
			}
			reqs := b.requests()
			if len(reqs) != 1 || len(other.requests()) != 0 {
				t.Fatalf("%s got %d requests, the other %d; want 1 and 0", tt.wantBackend, len(reqs), len(other.requests()))
			}
			got := reqs[0]
			if got.URL.Path != tt.path || got.Method != tt.method {
				t.Errorf("backend saw %s %s, want %s %s", got.Method, got.URL.Path, tt.method, tt.path)
			}
			if got.Header.Get("Authorization") != "" {
				t.Errorf("Authorization reached the backend: %q", got.Header.Get("Authorization"))
			}
			if u := got.Header.Get("X-Remote-User"); u != tt.wantUser {
				t.Errorf("X-Remote-User %q, want %q", u, tt.wantUser)
			}
			wantGroups := []string(nil)
			if tt.wantUser != "" {
				wantGroups = []string{"devs", "system:authenticated"}
			}
			if g := got.Header.Values("X-Remote-Group"); !reflect.DeepEqual(g, wantGroups) {
				t.Errorf("X-Remote-Group %q, want %q", g, wantGroups)
			}
			if m := got.Header.Get(headerMarked) != ""; m != tt.wantMarked {
				t.Errorf("%s present: %v, want %v", headerMarked, m, tt.wantMarked)
			}
			if n := routed(t, p)["skewcheck_peerproxy_requests_total/"+tt.wantBackend]; n != 1 {
				t.Errorf("requests routed %s: %v, want 1 (%v)", tt.wantBackend, n, routed(t, p))
			}
		})
	}
}

func TestServeHTTPPeerUnreachable(t *testing.T) {
	local := newBackend(t, "local")
	p := testProxy(t, local.URL, refusedURL(t))
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		r := httptest.NewRequest(method, "/apis/batch/v1/namespaces/ns/jobs", nil)
		r.Header.Set("Authorization", "Bearer good")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
			t.Errorf("%s: answer %d Retry-After %q, want 503 and 1", method, w.Code, w.Header().Get("Retry-After"))
		}
		var s metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil || s.Reason != metav1.StatusReasonServiceUnavailable {
			t.Errorf("%s: body %q is not a ServiceUnavailable Status (%v)", method, w.Body, err)
		}
	}
	if len(local.requests()) != 0 {
		t.Errorf("the local apiserver got %d requests, want 0", len(local.requests()))
	}
	m := routed(t, p)
	// Each request is counted once: as unavailable, not also as routed to a peer.
	if m["skewcheck_peerproxy_requests_total/unavailable"] != 2 || m["skewcheck_peerproxy_requests_total/peer"] != 0 || m["skewcheck_peerproxy_peer_errors_total"] != 2 {
		t.Errorf("metrics %v, want 2 unavailable, 0 peer and 2 peer errors", m)
	}
}

func TestServeHTTPLocalUnreachable(t *testing.T) {
	peer := newBackend(t, "peer")
	p := testProxy(t, refusedURL(t), peer.URL)
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" {
		t.Errorf("answer %d Retry-After %q, want 503 and 1", w.Code, w.Header().Get("Retry-After"))
	}
	if !strings.Contains(w.Body.String(), "local apiserver") {
		t.Errorf("body %q does not say the local apiserver is unreachable", w.Body)
	}
	if m := routed(t, p); m["skewcheck_peerproxy_requests_total/unavailable"] != 1 || m["skewcheck_peerproxy_requests_total/local"] != 0 {
		t.Errorf("metrics %v, want 1 unavailable and 0 local", m)
	}
}

// A token the apiserver rejects is answered 401 as the apiserver answers it, never
// forwarded as anonymous: client-go refreshes its credentials only on a 401.
func TestServeHTTPRejectedTokenIs401(t *testing.T) {
	local, peer := newBackend(t, "local"), newBackend(t, "peer")
	p := testProxy(t, local.URL, peer.URL)
	for _, path := range []string{"/api/v1/pods", "/apis/batch/v1/jobs", "/version"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Bearer bad")
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		var s metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &s); w.Code != http.StatusUnauthorized || err != nil ||
			s.Reason != metav1.StatusReasonUnauthorized || s.Code != 401 || s.Message != "Unauthorized" {
			t.Errorf("%s: answer %d %q, want the apiserver's 401 Status Unauthorized", path, w.Code, w.Body)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q, want application/json", path, ct)
		}
	}
	if n := len(local.requests()) + len(peer.requests()); n != 0 {
		t.Errorf("a rejected token was forwarded %d times", n)
	}
}

func TestServeHTTPTokenReviewFails(t *testing.T) {
	local := newBackend(t, "local")
	p := testProxy(t, local.URL, local.URL)
	cs, _ := reviewer(t, nil, errors.New("boom"))
	p.auth = newAuthenticator(cs)
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer any")
	w := httptest.NewRecorder()
	p.ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "boom") {
		t.Errorf("answer %d %q, want 503 mentioning the error", w.Code, w.Body)
	}
	if len(local.requests()) != 0 {
		t.Errorf("the request was forwarded although the token could not be reviewed")
	}
}

func TestServeHTTPMergedDiscovery(t *testing.T) {
	local, peer := newBackend(t, "local"), newBackend(t, "peer")
	p := testProxy(t, local.URL, peer.URL)

	r := httptest.NewRequest(http.MethodGet, "/apis", nil)
	r.Header.Set("Authorization", "Bearer good")
	r.Header.Set("Accept", acceptKubectl)
	w := httptest.NewRecorder()
	p.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("answer %d %q, want 200", w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Errorf("Content-Type %q", ct)
	}
	var got apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := list(group("apps", ver("v1", res("deployments"))), group("batch", ver("v1", res("jobs"))))
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("merged discovery %s, want %s", summary(&got), summary(want))
	}
	if len(local.requests())+len(peer.requests()) != 0 {
		t.Error("merged discovery reached a backend")
	}

	// nopeer: the proxy's own cached local view, not the apiserver, which may merge itself.
	r = httptest.NewRequest(http.MethodGet, "/apis", nil)
	r.Header.Set("Authorization", "Bearer good")
	r.Header.Set("Accept", acceptNoPeer)
	w = httptest.NewRecorder()
	p.ServeHTTP(w, r)
	var nopeer apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(w.Body.Bytes(), &nopeer); w.Code != http.StatusOK || err != nil {
		t.Fatalf("nopeer answer %d %q", w.Code, w.Body)
	}
	if wantLocal := list(group("apps", ver("v1", res("deployments")))); !reflect.DeepEqual(&nopeer, wantLocal) {
		t.Errorf("nopeer discovery %s, want only the local view %s", summary(&nopeer), summary(wantLocal))
	}
	if len(local.requests())+len(peer.requests()) != 0 {
		t.Error("nopeer discovery reached a backend")
	}

	// Not merged: anonymous, v2beta1, a request a peer sent, and other methods.
	for _, tc := range []struct {
		name       string
		header     http.Header
		method     string
		wantAccept string
	}{
		{"anonymous", http.Header{"Accept": {acceptKubectl}}, "GET", acceptKubectl},
		{"v2beta1", http.Header{"Authorization": {"Bearer good"}, "Accept": {"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"}}, "GET",
			"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"},
		{"marked", http.Header{"Authorization": {"Bearer good"}, "Accept": {acceptKubectl}, "X-Kubernetes-Peer-Proxied": {"true"}}, "GET", acceptKubectl},
		{"HEAD", http.Header{"Authorization": {"Bearer good"}, "Accept": {acceptKubectl}}, "HEAD", acceptKubectl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(local.requests())
			r := httptest.NewRequest(tc.method, "/apis", nil)
			for k, vs := range tc.header {
				r.Header[k] = vs
			}
			w := httptest.NewRecorder()
			p.ServeHTTP(w, r)
			reqs := local.requests()
			if w.Code != http.StatusOK || len(reqs) != before+1 {
				t.Fatalf("answer %d, local requests %d; want 200 from the local apiserver", w.Code, len(reqs)-before)
			}
			if a := reqs[len(reqs)-1].Header.Get("Accept"); a != tc.wantAccept {
				t.Errorf("Accept at the local apiserver %q, want %q", a, tc.wantAccept)
			}
		})
	}
	if len(peer.requests()) != 0 {
		t.Error("discovery reached the peer")
	}
}

// A client naming the proxy's own headers in Connection would have them removed as
// hop-by-hop on the way out: the peer would see the proxy's certificate with no user, or a
// request with no loop marker. Such requests are refused.
func TestServeHTTPRefusesConnectionNamingIdentityHeaders(t *testing.T) {
	for _, named := range []string{"X-Remote-User", "x-remote-group", "X-Remote-Uid", "X-Remote-Extra-Scopes",
		"Impersonate-User", "impersonate-group", "Impersonate-Uid", "Impersonate-Extra-Scopes", "X-Kubernetes-Peer-Proxied",
		"keep-alive, X-Remote-User"} {
		local, peer := newBackend(t, "local"), newBackend(t, "peer")
		p := testProxy(t, local.URL, peer.URL)
		r := httptest.NewRequest(http.MethodGet, "/apis/batch/v1/namespaces/ns/jobs", nil)
		r.Header.Set("Authorization", "Bearer good")
		r.Header.Set("Connection", named)
		w := httptest.NewRecorder()
		p.ServeHTTP(w, r)
		var s metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &s); w.Code != http.StatusBadRequest || err != nil || s.Reason != metav1.StatusReasonBadRequest {
			t.Errorf("Connection: %s: answer %d %q, want a 400 BadRequest Status", named, w.Code, w.Body)
		}
		if n := len(local.requests()) + len(peer.requests()); n != 0 {
			t.Errorf("Connection: %s: forwarded %d times", named, n)
		}
	}
}

// The identity and the loop marker are written on the outgoing request after hop-by-hop
// headers are removed, so nothing a client sends can take them off.
func TestForwardSetsIdentityAfterHopByHopRemoval(t *testing.T) {
	local, peer := newBackend(t, "local"), newBackend(t, "peer")
	p := testProxy(t, local.URL, peer.URL)
	r := httptest.NewRequest(http.MethodGet, "/apis/batch/v1/namespaces/ns/jobs", nil)
	r.Header.Set("Connection", "X-Remote-User, X-Remote-Group, X-Kubernetes-Peer-Proxied")
	w := httptest.NewRecorder()
	p.forward(w, r, &authn.User{Name: "bob", Groups: []string{"devs"}}, []string{peer.URL}, true)
	reqs := peer.requests()
	if w.Code != http.StatusOK || len(reqs) != 1 {
		t.Fatalf("answer %d, %d requests at the peer; want 200 and 1", w.Code, len(reqs))
	}
	h := reqs[0].Header
	if h.Get("X-Remote-User") != "bob" || h.Get("X-Remote-Group") != "devs" || h.Get(headerMarked) != "true" {
		t.Errorf("the peer saw user %q groups %q marker %q; want bob, devs, true", h.Get("X-Remote-User"), h.Values("X-Remote-Group"), h.Get(headerMarked))
	}
}
