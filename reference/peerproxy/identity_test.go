package peerproxy

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
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
		u    *user
		want http.Header
	}{
		{
			name: "user and groups",
			u:    &user{name: "alice", groups: []string{"dev", "ops", "system:authenticated"}},
			want: http.Header{"X-Remote-User": {"alice"}, "X-Remote-Group": {"dev", "ops", "system:authenticated"}},
		},
		{
			name: "uid when set",
			u:    &user{name: "bob", uid: "u1", groups: []string{"system:authenticated"}},
			want: http.Header{"X-Remote-User": {"bob"}, "X-Remote-Uid": {"u1"}, "X-Remote-Group": {"system:authenticated"}},
		},
		{
			name: "no groups",
			u:    &user{name: "carol"},
			want: http.Header{"X-Remote-User": {"carol"}},
		},
		{
			name: "extra keys path-escaped, several values",
			u: &user{name: "dave", extra: map[string][]string{
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
	setIdentity(h, &user{name: "x", extra: map[string][]string{"example.com/scope": {"v"}}})
	if got := h.Values("X-Remote-Extra-example.com%2Fscope"); !reflect.DeepEqual(got, []string{"v"}) {
		t.Errorf("X-Remote-Extra-example.com%%2Fscope = %v, want [v] (headers %v)", got, h)
	}
	for k := range h {
		if k == "X-Remote-User" {
			continue
		}
		key, err := url.PathUnescape(strings.ToLower(k[len(headerExtra):]))
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
	setIdentity(h, &user{name: "alice", groups: []string{"dev"}})
	want := http.Header{"X-Remote-User": {"alice"}, "X-Remote-Group": {"dev"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headers = %v, want %v", h, want)
	}
}

func TestWithAuthenticated(t *testing.T) {
	tests := []struct {
		groups, want []string
	}{
		{nil, []string{"system:authenticated"}},
		{[]string{"dev"}, []string{"dev", "system:authenticated"}},
		{[]string{"system:authenticated", "dev"}, []string{"system:authenticated", "dev"}},
		{[]string{"dev", "system:authenticated"}, []string{"dev", "system:authenticated"}},
	}
	for _, tt := range tests {
		u := withAuthenticated(&user{name: "u", groups: append([]string(nil), tt.groups...)})
		if !reflect.DeepEqual(u.groups, tt.want) {
			t.Errorf("withAuthenticated(groups %v) = %v, want %v", tt.groups, u.groups, tt.want)
		}
		// Twice is the same as once.
		if u2 := withAuthenticated(u); !reflect.DeepEqual(u2.groups, tt.want) {
			t.Errorf("withAuthenticated twice (groups %v) = %v, want %v", tt.groups, u2.groups, tt.want)
		}
	}
}

func TestAuthenticateClientCertificate(t *testing.T) {
	cert := &x509.Certificate{Raw: []byte("der"), Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev", "ops"},
		Names: []pkix.AttributeTypeAndValue{{Type: k8sasn1.X509UID(), Value: "uid-1"}}}}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	// A certificate wins over a bearer token, as in kube-apiserver's authenticator order.
	r.Header.Set("Authorization", "Bearer ignored")
	a := &authenticator{} // no reviews client: a review would panic
	u, err := a.authenticate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	// As kube-apiserver's x509 authenticator: UID from the subject, the fingerprint as credential ID.
	fp := sha256.Sum256([]byte("der"))
	want := &user{name: "alice", uid: "uid-1", groups: []string{"dev", "ops", "system:authenticated"},
		extra: map[string][]string{credentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("authenticate = %+v, want %+v", u, want)
	}
	if !reflect.DeepEqual(cert.Subject.Organization, []string{"dev", "ops"}) {
		t.Errorf("the certificate's Organization was modified: %v", cert.Subject.Organization)
	}
}

func TestAuthenticateAnonymous(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  *tls.ConnectionState
		auth string
	}{
		{name: "nothing"},
		{name: "TLS without a client certificate", tls: &tls.ConnectionState{}},
		{name: "basic auth", auth: "Basic YWxpY2U6cHc="},
		{name: "empty bearer", auth: "Bearer "},
		{name: "scheme only", auth: "Bearer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
			r.TLS = tc.tls
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			a := &authenticator{} // no reviews client: a review would panic
			u, err := a.authenticate(context.Background(), r)
			if u != nil || err != nil {
				t.Errorf("authenticate = %+v, %v; want nil, nil", u, err)
			}
		})
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

func TestAuthenticateBearerToken(t *testing.T) {
	cs, calls := reviewer(t, map[string]authnv1.UserInfo{
		"good": {Username: "bob", UID: "u1", Groups: []string{"devs"},
			Extra: map[string]authnv1.ExtraValue{"example.com/scope": {"read", "write"}}},
	}, nil)
	a := &authenticator{reviews: cs}
	want := &user{name: "bob", uid: "u1", groups: []string{"devs", "system:authenticated"},
		extra: map[string][]string{"example.com/scope": {"read", "write"}}}

	u, err := a.authenticate(context.Background(), bearer("good"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("authenticate = %+v, want %+v", u, want)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d token reviews, want 1", n)
	}

	// Within tokenCacheTTL the answer comes from the cache.
	u, err = a.authenticate(context.Background(), bearer("good"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("second authenticate = %+v, want %+v", u, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d token reviews after a second request within the TTL, want 1", n)
	}

	// Once the cached review expires, the token is reviewed again.
	a.mu.Lock()
	c := a.cache[tokenKey("good")]
	c.expires = time.Now().Add(-time.Second)
	a.cache[tokenKey("good")] = c
	a.mu.Unlock()
	if _, err := a.authenticate(context.Background(), bearer("good")); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews after the cache expired, want 2", n)
	}
}

func TestAuthenticateBearerTokenRejected(t *testing.T) {
	cs, calls := reviewer(t, nil, nil)
	a := &authenticator{reviews: cs}
	for i := range 2 {
		u, err := a.authenticate(context.Background(), bearer("bad"))
		if u != nil || !errors.Is(err, errInvalidToken) {
			t.Errorf("authenticate #%d = %+v, %v; want nil, %v", i+1, u, err, errInvalidToken)
		}
	}
	// A rejection is cached too.
	if n := calls.Load(); n != 1 {
		t.Errorf("%d token reviews, want 1", n)
	}
}

func TestAuthenticateBearerTokenReviewFails(t *testing.T) {
	boom := errors.New("apiserver unreachable")
	cs, calls := reviewer(t, nil, boom)
	a := &authenticator{reviews: cs}
	for i := range 2 {
		u, err := a.authenticate(context.Background(), bearer("any"))
		if u != nil || !errors.Is(err, boom) {
			t.Errorf("authenticate #%d = %+v, %v; want nil, %v", i+1, u, err, boom)
		}
	}
	// An error is not cached: the next request tries again.
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews, want 2", n)
	}
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

// Upstream ignores a certificate without a CN and goes on to the token; the scheme of the
// Authorization header is case-insensitive.
func TestAuthenticateEmptyCNFallsBackAndBearerAnyCase(t *testing.T) {
	cert := &x509.Certificate{Subject: pkix.Name{Organization: []string{"system:masters"}}}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	a := &authenticator{cache: map[string]cachedReview{tokenKey("tok"): {user: &user{name: "bob"}, expires: time.Now().Add(time.Minute)}}}
	for _, h := range []string{"Bearer tok", "bearer tok", "BEARER tok"} {
		r.Header.Set("Authorization", h)
		u, err := a.authenticate(context.Background(), r)
		if err != nil || u == nil || u.name != "bob" {
			t.Errorf("%q with an empty-CN certificate: got %+v, %v; want the token's user bob", h, u, err)
		}
	}
}

func TestTokenCacheIsBounded(t *testing.T) {
	cache := map[string]cachedReview{}
	for i := 0; i < maxCachedTokens; i++ {
		cache[fmt.Sprint("expired", i)] = cachedReview{expires: time.Now().Add(-time.Second)}
	}
	cache["live"] = cachedReview{expires: time.Now().Add(time.Minute)}
	got := prune(cache)
	if len(got) != 1 || got["live"].expires.IsZero() {
		t.Errorf("prune kept %d entries, want only the live one", len(got))
	}
	full := map[string]cachedReview{}
	for i := 0; i < maxCachedTokens; i++ {
		full[fmt.Sprint("live", i)] = cachedReview{expires: time.Now().Add(time.Minute)}
	}
	if n := len(prune(full)); n != 0 {
		t.Errorf("a cache full of live reviews should start afresh, kept %d", n)
	}
}

// The cache is keyed by the token's sha256, as upstream's token cache is: the proxy's memory
// holds no usable credential.
func TestTokenCacheHoldsNoToken(t *testing.T) {
	cs, _ := reviewer(t, map[string]authnv1.UserInfo{"secret-good": {Username: "bob"}}, nil)
	a := &authenticator{reviews: cs}
	a.authenticate(context.Background(), bearer("secret-good"))
	a.authenticate(context.Background(), bearer("secret-bad"))
	if len(a.cache) != 2 {
		t.Fatalf("%d cached reviews, want 2", len(a.cache))
	}
	for k := range a.cache {
		if strings.Contains(k, "secret") || len(k) != 64 {
			t.Errorf("cache key %q is not a sha256 hash of the token", k)
		}
	}
}
