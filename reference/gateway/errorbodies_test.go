package gateway

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the gateway answers itself when it cannot serve a request names nothing of its
// own: not the other clusters' server names or names (the client may be anybody's), not
// the servers' addresses nor what failed reaching them. The 503s say it in a fixed
// message and the 421 names only what the client sent; the log has the details.
func TestClientFacingErrorsNameNothingInternal(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // nothing listens there any more: the dial fails
	deadHost := strings.TrimPrefix(dead.URL, "http://")
	for _, tc := range []struct {
		name     string
		gateway  func() *Gateway
		sni      string
		host     string
		header   http.Header
		code     int
		message  string
		internal []string // in the log, never in the body
	}{
		{"an unknown server name", func() *Gateway { return twoTenants(t, dead.URL) }, "unknown.test", "unknown.test", nil,
			http.StatusServiceUnavailable, unavailableNoCluster, []string{"a.tenant.test", "b.tenant.test"}},
		{"an unreachable server", func() *Gateway { return testGateway(t, Defects{}, dead.URL) }, "gw.test", "gw.test", nil,
			http.StatusServiceUnavailable, unavailableUpstream, []string{deadHost}},
		{"no healthy server", func() *Gateway {
			g := testGateway(t, Defects{}, dead.URL)
			g.state.Load().clusters[0].servers[0].healthy.Store(false)
			return g
		}, "gw.test", "gw.test", nil, http.StatusServiceUnavailable, unavailableUpstream, []string{deadHost}},
		{"an impersonation that cannot be authorized", func() *Gateway {
			g := testGateway(t, Defects{}, dead.URL)
			g.state.Load().clusters[0].impersonation = &impersonationAuthorizer{review: func(context.Context, *authzv1.SubjectAccessReview) (bool, error) {
				return false, errors.New("POST " + dead.URL + "/apis/authorization.k8s.io/v1/subjectaccessreviews: connection refused")
			}}
			return g
		}, "gw.test", "gw.test", http.Header{"Impersonate-User": {"alice"}}, http.StatusServiceUnavailable,
			"could not authorize the requested impersonation: " + unavailableUpstream, []string{deadHost}},
		{"a Host of another cluster", func() *Gateway { return twoTenants(t, dead.URL) }, "a.tenant.test", "b.tenant.test", nil,
			http.StatusMisdirectedRequest, misdirection("a.tenant.test", "b.tenant.test"), []string{"tenant-a", "tenant-b"}},
	} {
		g := tc.gateway()
		var logged bytes.Buffer
		g.errorLog = log.New(&logged, "", 0)
		r := httptest.NewRequest(http.MethodGet, "https://"+tc.host+"/api/v1/namespaces/default/configmaps", nil)
		r.TLS = &tls.ConnectionState{ServerName: tc.sni}
		r.Header.Set("Authorization", "Bearer bob")
		for k, vs := range tc.header {
			r.Header[k] = vs
		}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		var s metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil || w.Code != tc.code || s.Message != tc.message {
			t.Errorf("%s: %d %s, want %d saying %q", tc.name, w.Code, w.Body, tc.code, tc.message)
		}
		for _, detail := range tc.internal {
			if strings.Contains(w.Body.String(), detail) {
				t.Errorf("%s: the answer %s names %q", tc.name, w.Body, detail)
			}
			if tc.code == http.StatusServiceUnavailable && !strings.Contains(logged.String(), detail) {
				t.Errorf("%s: the log %q does not name %q", tc.name, logged.String(), detail)
			}
		}
	}
}

// twoTenants is testGateway's cluster as tenant-a, for a.tenant.test, beside tenant-b,
// for b.tenant.test, which serves nothing.
func twoTenants(t *testing.T, upstream string) *Gateway {
	g := testGateway(t, Defects{}, upstream)
	a := g.state.Load().clusters[0]
	a.name, a.serverNames = "tenant-a", []string{"a.tenant.test"}
	b := &cluster{name: "tenant-b", serverNames: []string{"b.tenant.test"}}
	g.cfg.DefaultServerName = ""
	g.state.Store(&state{clusters: []*cluster{a, b}, bySNI: map[string]*cluster{"a.tenant.test": a, "b.tenant.test": b}})
	return g
}
