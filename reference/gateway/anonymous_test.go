package gateway

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A request without credentials is answered 401 by the gateway and goes nowhere, as
// kube-apiserver with --anonymous-auth=false answers it (k8s.io/apiserver's
// filters.Unauthorized: the Status below, nosniff, and Connection: close over HTTP/2),
// even when it asks to impersonate someone (authentication comes first). Forwarding it
// impersonating system:anonymous, with the gateway's own credentials, would let anonymous
// in behind apiservers that keep it out: only a cluster with spec.anonymous does that.
func TestAnonymousRefusedUnlessTheClusterLetsItIn(t *testing.T) {
	want := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Message: "Unauthorized", Reason: metav1.StatusReasonUnauthorized, Code: http.StatusUnauthorized}
	for _, tc := range []struct {
		name  string
		proto int
		h     http.Header
	}{
		{"HTTP/1.1", 1, nil},
		{"HTTP/2", 2, nil},
		{"HTTP/1.1, impersonating", 1, http.Header{"Impersonate-User": {"admin"}}},
	} {
		up := newRecordingUpstream(t)
		g := testGateway(t, Defects{}, up.URL)
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/kube-system/secrets", nil)
		r.ProtoMajor = tc.proto
		for k, vs := range tc.h {
			r.Header[k] = vs
		}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		var got metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusUnauthorized || got != want {
			t.Errorf("%s, no credentials: %d %s, want 401 with %+v", tc.name, w.Code, w.Body, want)
		}
		if ct, nosniff := w.Header().Get("Content-Type"), w.Header().Get("X-Content-Type-Options"); ct != "application/json" || nosniff != "nosniff" {
			t.Errorf("%s, no credentials: Content-Type %q, X-Content-Type-Options %q; want application/json, nosniff", tc.name, ct, nosniff)
		}
		if conn, want := w.Header().Get("Connection"), map[int]string{1: "", 2: "close"}[tc.proto]; conn != want {
			t.Errorf("%s, no credentials: Connection %q, want %q", tc.name, conn, want)
		}
		if n := len(up.requests()); n != 0 {
			t.Errorf("%s, no credentials: %d requests reached the upstream, want none", tc.name, n)
		}
	}

	up := newRecordingUpstream(t)
	g := testGateway(t, Defects{}, up.URL)
	g.state.Load().clusters[0].anonymous = true
	w := httptest.NewRecorder()
	g.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/version", nil))
	reqs := up.requests()
	if w.Code != http.StatusOK || len(reqs) != 1 || reqs[0].Get("Impersonate-User") != anonymousUser || reqs[0].Get("Impersonate-Group") != unauthenticated {
		t.Errorf("spec.anonymous, no credentials: %d after %d upstream requests (%v), want 200 after one as %s in %s", w.Code, len(reqs), reqs, anonymousUser, unauthenticated)
	}
}
