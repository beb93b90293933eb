package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// recordingUpstream is an apiserver stand-in that answers 200 and keeps the headers of
// every request it gets.
type recordingUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newRecordingUpstream(t *testing.T) *recordingUpstream {
	u := &recordingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, r.Header.Clone())
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *recordingUpstream) requests() []http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]http.Header(nil), u.seen...)
}

// testGateway is a gateway with one cluster whose one catch-all policy sends everything to
// the upstreams, the first first; the bearer token "bob" is the user bob.
func testGateway(t *testing.T, d Defects, upstreamURLs ...string) *Gateway {
	conn := newConnector("c", resolvedClientConfig{}, 2*time.Second)
	t.Cleanup(conn.closeIdle)
	var ups []*upstream
	for _, u := range upstreamURLs {
		up := newUpstream("c", conn, u, nil)
		up.healthy.Store(true)
		ups = append(ups, up)
	}
	all := []string{"*"}
	c := &cluster{name: "c", conn: conn, servers: ups,
		auth: &authn.Authenticator{Review: func(_ context.Context, token string) (*authn.User, error) {
			if token == "bob" {
				return authn.FromReview(authnv1.UserInfo{Username: "bob", Groups: []string{"devs"}}), nil
			}
			return nil, nil
		}},
		policies: []*policy{{label: "0", subset: ups, limiter: exempt{},
			rules: []rule{compileRule(gwapi.DispatchPolicyRule{Verbs: all, APIGroups: all, Resources: all, NonResourceURLs: all}, d)}}},
	}
	g := &Gateway{cfg: Config{DefaultServerName: "gw.test", Defects: d}, metrics: newMetrics(), errorLog: log.New(io.Discard, "", 0)}
	g.state.Store(&state{clusters: []*cluster{c}, bySNI: map[string]*cluster{"gw.test": c}})
	return g
}

// connectionVariants name, in Connection, the headers the gateway sets (impersonation),
// strips (X-Remote-*, Authorization) or that a peer proxy behind it trusts (the loop
// marker): a client asking for them to be removed on the way out.
var connectionVariants = []string{
	"Impersonate-User, Impersonate-Group",
	"impersonate-user",
	"Impersonate-Uid, Impersonate-Extra-Scopes",
	"keep-alive, Impersonate-Group",
	"X-Remote-User, X-Remote-Group, X-Remote-Uid, X-Remote-Extra-Scopes",
	"Authorization",
	"X-Kubernetes-Peer-Proxied",
}

// Whatever a client names in Connection, the upstream never sees the gateway's bare
// identity: the request is refused (400, BadRequest, naming the header) before it goes
// anywhere, or it arrives impersonating the client. Anonymous and bearer-token clients
// alike; a request naming nothing of the kind arrives impersonating its client.
func TestConnectionCannotDropImpersonation(t *testing.T) {
	for _, client := range []struct {
		name, token, user string
	}{{"anonymous", "", anonymousUser}, {"bob", "bob", "bob"}} {
		for _, named := range connectionVariants {
			up := newRecordingUpstream(t)
			g := testGateway(t, Defects{}, up.URL)
			r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/kube-system/secrets", nil)
			if client.token != "" {
				r.Header.Set("Authorization", "Bearer "+client.token)
			}
			r.Header.Set("Connection", named)
			w := httptest.NewRecorder()
			g.ServeHTTP(w, r)
			reqs := up.requests()
			for _, h := range reqs {
				if got := h.Get("Impersonate-User"); got != client.user {
					t.Errorf("%s, Connection: %s: the upstream saw Impersonate-User %q (headers %v), want %q: without it the request runs as the gateway",
						client.name, named, got, h, client.user)
				}
			}
			var s metav1.Status
			if err := json.Unmarshal(w.Body.Bytes(), &s); w.Code != http.StatusBadRequest || err != nil || s.Reason != metav1.StatusReasonBadRequest || len(reqs) != 0 {
				t.Errorf("%s, Connection: %s: answer %d %q after %d upstream requests, want a 400 BadRequest Status and none", client.name, named, w.Code, w.Body, len(reqs))
			}
		}
	}
}

// Impersonation is written on the outgoing request, after hop-by-hop removal: a plain
// request, an upgrade (its Connection names Upgrade) and a read retried on the second
// server after the first could not be reached carry the client's identity, and a
// client's own Impersonate-*, X-Remote-* and loop marker never arrive.
func TestForwardImpersonatesTheClient(t *testing.T) {
	up := newRecordingUpstream(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // nothing listens there any more: the dial fails
	g := testGateway(t, Defects{}, dead.URL, up.URL)
	for _, h := range []http.Header{
		{},
		{"Connection": {"Upgrade"}, "Upgrade": {"SPDY/3.1"}},
		{"X-Remote-User": {"admin"}, "X-Remote-Group": {"system:masters"}, "X-Kubernetes-Peer-Proxied": {"true"}},
	} {
		before := len(up.requests())
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/pods", nil)
		for k, vs := range h {
			r.Header[k] = vs
		}
		r.Header.Set("Authorization", "Bearer bob")
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		reqs := up.requests()
		if len(reqs) != before+1 {
			t.Fatalf("headers %v: answer %d %q, %d upstream requests, want 1", h, w.Code, w.Body, len(reqs)-before)
		}
		got := reqs[len(reqs)-1]
		if got.Get("Impersonate-User") != "bob" || len(got.Values("Impersonate-Group")) != 2 {
			t.Errorf("headers %v: the upstream saw Impersonate-User %q, groups %q; want bob in devs and system:authenticated", h, got.Get("Impersonate-User"), got.Values("Impersonate-Group"))
		}
		for _, k := range []string{"Authorization", "X-Remote-User", "X-Remote-Group", "X-Kubernetes-Peer-Proxied"} {
			if v := got.Get(k); v != "" {
				t.Errorf("headers %v: the client's %s: %q reached the upstream", h, k, v)
			}
		}
	}
}

// The ImpersonationBeforeHopByHop defect is the bug it names: a client that names the
// impersonation headers in Connection reaches the upstream with none, as the gateway.
func TestImpersonationBeforeHopByHopDefect(t *testing.T) {
	up := newRecordingUpstream(t)
	g := testGateway(t, Defects{ImpersonationBeforeHopByHop: true}, up.URL)
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/kube-system/secrets", nil)
	r.Header.Set("Authorization", "Bearer bob")
	r.Header.Set("Connection", "Impersonate-User, Impersonate-Group")
	w := httptest.NewRecorder()
	g.ServeHTTP(w, r)
	reqs := up.requests()
	if w.Code != http.StatusOK || len(reqs) != 1 || reqs[0].Get("Impersonate-User") != "" {
		t.Errorf("with the defect: answer %d, %d upstream requests, Impersonate-User %q; want 200, 1 and none", w.Code, len(reqs), reqs)
	}
}
