package peerproxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

func TestStripIdentity(t *testing.T) {
	h := http.Header{}
	// Header.Add canonicalizes, as net/http's server does for every incoming header.
	h.Add("X-Remote-User", "mallory")
	h.Add("x-remote-group", "system:masters")
	h.Add("X-REMOTE-GROUP", "admins")
	h.Add("x-Remote-uid", "0")
	h.Add("X-Remote-Extra-Scopes", "all")
	h.Add("x-remote-extra-example.com%2Fscope", "all")
	h.Add("X-Remote-Anything", "x")
	h.Add("Authorization", "Bearer secret")
	h.Add("Impersonate-User", "bob")
	h.Add("Impersonate-Group", "devs")
	h.Add("Accept", "application/json")
	h.Add("User-Agent", "kubectl")
	h.Add("X-Remotely", "kept") // not the X-Remote- prefix
	stripIdentity(h)

	want := http.Header{
		"Impersonate-User":  {"bob"},
		"Impersonate-Group": {"devs"},
		"Accept":            {"application/json"},
		"User-Agent":        {"kubectl"},
		"X-Remotely":        {"kept"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("after stripIdentity: %v, want %v", h, want)
	}
}

// TestStripIdentityFromTheWire sends identity headers in odd cases over HTTP/1.1 and checks
// that what the server hands the handler is stripped of every one of them.
func TestStripIdentityFromTheWire(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stripIdentity(r.Header)
		got <- r.Header.Clone()
	}))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	// Raw map keys go on the wire as written.
	req.Header["x-remote-user"] = []string{"mallory"}
	req.Header["X-REMOTE-GROUP"] = []string{"system:masters"}
	req.Header["x-remote-extra-scopes"] = []string{"all"}
	req.Header["X-Remote-Uid"] = []string{"0"}
	req.Header["authorization"] = []string{"Bearer secret"}
	req.Header["impersonate-user"] = []string{"bob"}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-got
	for k := range h {
		if k == "Authorization" || strings.HasPrefix(http.CanonicalHeaderKey(k), "X-Remote-") {
			t.Errorf("header %s survived stripIdentity: %v", k, h)
		}
	}
	if h.Get("Impersonate-User") != "bob" {
		t.Errorf("Impersonate-User was stripped: %v", h)
	}
}

func TestSetIdentity(t *testing.T) {
	tests := []struct {
		name string
		u    *authn.User
		want http.Header
	}{
		{
			name: "user and groups",
			u:    &authn.User{Name: "alice", Groups: []string{"dev", "ops", "system:authenticated"}},
			want: http.Header{"X-Remote-User": {"alice"}, "X-Remote-Group": {"dev", "ops", "system:authenticated"}},
		},
		{
			name: "uid when set",
			u:    &authn.User{Name: "bob", UID: "u1", Groups: []string{"system:authenticated"}},
			want: http.Header{"X-Remote-User": {"bob"}, "X-Remote-Uid": {"u1"}, "X-Remote-Group": {"system:authenticated"}},
		},
		{
			name: "no groups",
			u:    &authn.User{Name: "carol"},
			want: http.Header{"X-Remote-User": {"carol"}},
		},
		{
			name: "extra keys path-escaped, several values",
			u: &authn.User{Name: "dave", Extra: map[string][]string{
				"example.com/scope": {"read", "write"},
				"scopes":            {"all"},
				"authentication.kubernetes.io/credential-id": {"JTI=abc"},
			}},
			want: http.Header{
				"X-Remote-User": {"dave"},
				http.CanonicalHeaderKey("X-Remote-Extra-example.com%2Fscope"): {"read", "write"},
				"X-Remote-Extra-Scopes": {"all"},
				http.CanonicalHeaderKey("X-Remote-Extra-authentication.kubernetes.io%2Fcredential-id"): {"JTI=abc"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			setIdentity(h, tt.u)
			if !reflect.DeepEqual(h, tt.want) {
				t.Errorf("setIdentity(%+v) = %v, want %v", tt.u, h, tt.want)
			}
		})
	}

	// The escaped key, read back the way the apiserver's request-header authenticator does
	// (lower-cased, then path-unescaped), is the original key.
	h := http.Header{}
	setIdentity(h, &authn.User{Name: "x", Extra: map[string][]string{"example.com/scope": {"v"}}})
	if got := h.Values("X-Remote-Extra-example.com%2Fscope"); !reflect.DeepEqual(got, []string{"v"}) {
		t.Errorf("X-Remote-Extra-example.com%%2Fscope = %v, want [v] (headers %v)", got, h)
	}
	for k := range h {
		if k == "X-Remote-User" {
			continue
		}
		key, err := url.PathUnescape(strings.ToLower(k[len(frontProxyHeaders.ExtraPrefix):]))
		if err != nil || key != "example.com/scope" {
			t.Errorf("extra header %q unescapes to %q, %v; want example.com/scope", k, key, err)
		}
	}
}

// TestSetIdentityAfterStrip is the order ServeHTTP uses: whatever the client claimed is gone
// and only the authenticated identity is sent.
func TestSetIdentityAfterStrip(t *testing.T) {
	h := http.Header{}
	h.Add("X-Remote-User", "mallory")
	h.Add("X-Remote-Group", "system:masters")
	h.Add("X-Remote-Extra-Scopes", "all")
	stripIdentity(h)
	setIdentity(h, &authn.User{Name: "alice", Groups: []string{"dev"}})
	want := http.Header{"X-Remote-User": {"alice"}, "X-Remote-Group": {"dev"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headers = %v, want %v", h, want)
	}
}

// reviewer is a fake clientset whose TokenReviews answer from tokens, counting calls.
func reviewer(t *testing.T, tokens map[string]authnv1.UserInfo, fail error) (*fake.Clientset, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		calls.Add(1)
		if fail != nil {
			return true, nil, fail
		}
		in := action.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		out := in.DeepCopy()
		if ui, ok := tokens[in.Spec.Token]; ok {
			out.Status = authnv1.TokenReviewStatus{Authenticated: true, User: ui}
		} else {
			out.Status = authnv1.TokenReviewStatus{Authenticated: false, Error: "invalid token"}
		}
		return true, out, nil
	})
	return cs, &calls
}

func bearer(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestStatusBody(t *testing.T) {
	var s metav1.Status
	if err := json.Unmarshal(statusBody(503, "ServiceUnavailable", "peer down"), &s); err != nil {
		t.Fatal(err)
	}
	want := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Code: 503, Reason: metav1.StatusReasonServiceUnavailable, Message: "peer down"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("statusBody = %+v, want %+v", s, want)
	}
}

// The apiserver's TokenReview decides: an authenticated token is its user, in
// system:authenticated; an unauthenticated one is authn.ErrInvalidToken; a failed review
// is its error. No credentials ask for no review and are no user, forwarded with none.
func TestNewAuthenticator(t *testing.T) {
	boom := errors.New("apiserver unreachable")
	cs, calls := reviewer(t, map[string]authnv1.UserInfo{
		"good": {Username: "bob", UID: "u1", Groups: []string{"devs"},
			Extra: map[string]authnv1.ExtraValue{"example.com/scope": {"read", "write"}}},
	}, nil)
	a := newAuthenticator(cs)
	u, err := a.Authenticate(context.Background(), bearer("good"))
	want := &authn.User{Name: "bob", UID: "u1", Groups: []string{"devs", "system:authenticated"},
		Extra: map[string][]string{"example.com/scope": {"read", "write"}}}
	if err != nil || !reflect.DeepEqual(u, want) {
		t.Errorf("a good token: %+v, %v; want %+v", u, err, want)
	}
	if u, err := a.Authenticate(context.Background(), bearer("bad")); u != nil || !errors.Is(err, authn.ErrInvalidToken) {
		t.Errorf("a rejected token: %+v, %v; want nil, %v", u, err, authn.ErrInvalidToken)
	}
	if u, err := a.Authenticate(context.Background(), httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)); u != nil || err != nil {
		t.Errorf("no credentials: %+v, %v; want nil, nil", u, err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews, want 2", n)
	}

	failing, _ := reviewer(t, nil, boom)
	if u, err := newAuthenticator(failing).Authenticate(context.Background(), bearer("any")); u != nil || !errors.Is(err, boom) {
		t.Errorf("a failed review: %+v, %v; want nil, %v", u, err, boom)
	}
}
