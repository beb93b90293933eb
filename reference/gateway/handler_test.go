package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// ServeHTTP's side of authentication: a client without credentials is refused 401 as
// kube-apiserver with --anonymous-auth=false refuses it, unless its cluster lets
// anonymous in (spec.anonymous), when it goes on as system:anonymous; a rejected token
// is the apiserver's 401; a review that fails is 503 saying nothing of the upstream (its
// error goes to the log). A cluster without policies answers every request that gets
// past authentication with a 403 naming the user (quoted in the JSON body).
func TestServeHTTPAuthentication(t *testing.T) {
	for _, tc := range []struct {
		name, auth string
		anonymous  bool
		code       int
		says       string
		logged     string
	}{
		{"no credentials", "", false, http.StatusUnauthorized, `"message":"Unauthorized"`, ""},
		{"no credentials, the cluster lets anonymous in", "", true, http.StatusForbidden, `user \"system:anonymous\"`, ""},
		{"a good token", "Bearer good", false, http.StatusForbidden, `user \"bob\"`, ""},
		{"a rejected token", "Bearer bad", false, http.StatusUnauthorized, `"message":"Unauthorized"`, ""},
		{"a failed review", "Bearer fail", false, http.StatusServiceUnavailable, `"message":"could not authenticate the request: the upstream apiserver is unavailable"`,
			"could not authenticate the client: review at https://10.9.8.7:6443: connection refused"},
	} {
		c := &cluster{name: "c", anonymous: tc.anonymous, auth: &authn.Authenticator{Review: func(_ context.Context, token string) (*authn.User, error) {
			switch token {
			case "good":
				return authn.FromReview(authnv1.UserInfo{Username: "bob"}), nil
			case "fail":
				return nil, errors.New("review at https://10.9.8.7:6443: connection refused")
			}
			return nil, nil
		}}}
		var logged bytes.Buffer
		g := &Gateway{cfg: Config{DefaultServerName: "gw.test"}, metrics: newMetrics(), errorLog: log.New(&logged, "", 0)}
		g.state.Store(&state{clusters: []*cluster{c}, bySNI: map[string]*cluster{"gw.test": c}})
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.says) || strings.Contains(w.Body.String(), "10.9.8.7") {
			t.Errorf("%s: %d %s, want %d saying %s, and nothing of the upstream", tc.name, w.Code, w.Body, tc.code, tc.says)
		}
		if !strings.Contains(logged.String(), tc.logged) {
			t.Errorf("%s: the log says %q, want it to say %q", tc.name, logged.String(), tc.logged)
		}
	}
}

// A request no policy matches is the client's, refused with 403 Forbidden; the
// NoPolicyInternalError defect answers it 500 as the reference once did.
func TestNoPolicyMatchesIsForbidden(t *testing.T) {
	for _, tc := range []struct {
		defects Defects
		code    int
		reason  metav1.StatusReason
	}{
		{Defects{}, http.StatusForbidden, metav1.StatusReasonForbidden},
		{Defects{NoPolicyInternalError: true}, http.StatusInternalServerError, metav1.StatusReasonInternalError},
	} {
		c := &cluster{name: "c", anonymous: true, auth: &authn.Authenticator{}} // the request has no credentials
		g := &Gateway{cfg: Config{DefaultServerName: "gw.test", Defects: tc.defects}, metrics: newMetrics(), errorLog: log.New(io.Discard, "", 0)}
		g.state.Store(&state{clusters: []*cluster{c}, bySNI: map[string]*cluster{"gw.test": c}})
		w := httptest.NewRecorder()
		g.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/default/secrets", nil))
		var s metav1.Status
		if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil || w.Code != tc.code || s.Reason != tc.reason ||
			!strings.Contains(s.Message, "no dispatch policy matches") || !strings.Contains(s.Message, `resource "secrets"`) {
			t.Errorf("defects %+v: %d %s, want %d %s naming the request no policy matches", tc.defects, w.Code, w.Body, tc.code, tc.reason)
		}
	}
}

// TestBodiesInTurnDefect: with the defect a body that has not finished arriving holds up
// another request, one without a body included, until it has.
func TestBodiesInTurnDefect(t *testing.T) {
	g := &Gateway{}
	pr, pw := io.Pipe()
	first := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/d/configmaps", pr)
	go g.readInTurn(first)
	for g.turn.TryLock() { // until the first holds the lock
		g.turn.Unlock()
		time.Sleep(time.Millisecond)
	}
	done := make(chan bool)
	go func() {
		done <- g.readInTurn(httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/d/configmaps", nil))
	}()
	select {
	case <-done:
		t.Fatal("a request without a body went ahead of a body still arriving: the defect must make it wait")
	case <-time.After(100 * time.Millisecond):
	}
	pw.Write([]byte("{}"))
	pw.Close()
	if !<-done {
		t.Error("the waiting request's (empty) body was not read")
	}
}
