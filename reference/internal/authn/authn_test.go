package authn

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	k8sasn1 "k8s.io/apimachinery/pkg/apis/asn1"
	"k8s.io/apimachinery/pkg/util/cache"
	clocktesting "k8s.io/utils/clock/testing"
)

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
		u := withAuthenticated(&User{Name: "u", Groups: append([]string(nil), tt.groups...)})
		if !reflect.DeepEqual(u.Groups, tt.want) {
			t.Errorf("withAuthenticated(groups %v) = %v, want %v", tt.groups, u.Groups, tt.want)
		}
		// Twice is the same as once.
		if u2 := withAuthenticated(u); !reflect.DeepEqual(u2.Groups, tt.want) {
			t.Errorf("withAuthenticated twice (groups %v) = %v, want %v", tt.groups, u2.Groups, tt.want)
		}
	}
}

// The user shares nothing with the review it came from: adding system:authenticated must
// not write into the review's groups.
func TestFromReview(t *testing.T) {
	ui := authnv1.UserInfo{Username: "bob", UID: "u1", Groups: make([]string, 1, 4),
		Extra: map[string]authnv1.ExtraValue{"example.com/scope": {"read"}}}
	ui.Groups[0] = "devs"
	u := FromReview(ui)
	want := &User{Name: "bob", UID: "u1", Groups: []string{"devs", "system:authenticated"},
		Extra: map[string][]string{"example.com/scope": {"read"}}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("FromReview = %+v, want %+v", u, want)
	}
	u.Extra["example.com/scope"][0] = "changed"
	if got := ui.Groups[:cap(ui.Groups)][1]; got != "" || ui.Extra["example.com/scope"][0] != "read" {
		t.Errorf("the review was modified: groups %q, extra %v", ui.Groups[:cap(ui.Groups)], ui.Extra)
	}
}

// Every header with one of the prefixes goes, whatever the case the client sent it in, and
// the client's Authorization; nothing else does.
func TestStripIdentity(t *testing.T) {
	h := http.Header{}
	// Header.Add canonicalizes, as net/http's server does for every incoming header.
	h.Add("impersonate-user", "bob")
	h.Add("X-REMOTE-GROUP", "system:masters")
	h.Add("Authorization", "Bearer secret")
	h.Add("Impersonation-Note", "kept") // not the Impersonate- prefix
	h.Add("X-Remotely", "kept")
	h.Add("Accept", "application/json")
	StripIdentity(h, "Impersonate-", "X-Remote-")
	want := http.Header{"Impersonation-Note": {"kept"}, "X-Remotely": {"kept"}, "Accept": {"application/json"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("after StripIdentity: %v, want %v", h, want)
	}
}

// A Connection entry names a protected header when its canonical form begins with a
// prefix, whatever the case, spacing and other entries; options like keep-alive and
// upgrade and headers like Impersonation-Note do not.
func TestNamedHopByHop(t *testing.T) {
	prefixes := []string{"Impersonate-", "X-Remote-", "Authorization"}
	for _, tc := range []struct {
		connection []string
		want       string
	}{
		{nil, ""},
		{[]string{"keep-alive, Upgrade"}, ""},
		{[]string{"Impersonation-Note, X-Remotely"}, ""},
		{[]string{"Impersonate-User, Impersonate-Group"}, "Impersonate-User"},
		{[]string{"keep-alive", " x-remote-group "}, "x-remote-group"},
		{[]string{"upgrade,impersonate-extra-scopes"}, "impersonate-extra-scopes"},
		{[]string{"AUTHORIZATION"}, "AUTHORIZATION"},
	} {
		h := http.Header{"Connection": tc.connection}
		if got := NamedHopByHop(h, prefixes...); got != tc.want {
			t.Errorf("Connection: %q: %q, want %q", tc.connection, got, tc.want)
		}
	}
}

// Set writes the user under the names it is given, the extra keys path-escaped.
func TestHeadersSet(t *testing.T) {
	hs := Headers{User: "Impersonate-User", Group: "Impersonate-Group", UID: "Impersonate-Uid", ExtraPrefix: "Impersonate-Extra-"}
	h := http.Header{}
	hs.Set(h, &User{Name: "alice", UID: "u1", Groups: []string{"dev", "system:authenticated"},
		Extra: map[string][]string{"example.com/scope": {"read", "write"}}})
	want := http.Header{"Impersonate-User": {"alice"}, "Impersonate-Uid": {"u1"}, "Impersonate-Group": {"dev", "system:authenticated"},
		http.CanonicalHeaderKey("Impersonate-Extra-example.com%2Fscope"): {"read", "write"}}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("Set = %v, want %v", h, want)
	}
	h = http.Header{}
	hs.Set(h, &User{Name: "bob"})
	if want := (http.Header{"Impersonate-User": {"bob"}}); !reflect.DeepEqual(h, want) {
		t.Errorf("Set without groups, UID or extra = %v, want %v", h, want)
	}
}

func TestAuthenticateClientCertificate(t *testing.T) {
	cert := &x509.Certificate{Raw: []byte("der"), Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev", "ops"},
		Names: []pkix.AttributeTypeAndValue{{Type: k8sasn1.X509UID(), Value: "uid-1"}}}}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	// A certificate wins over a bearer token, as in kube-apiserver's authenticator order.
	r.Header.Set("Authorization", "Bearer ignored")
	a := &Authenticator{} // no Review: a review would panic
	u, err := a.Authenticate(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	// As kube-apiserver's x509 authenticator: UID from the subject, the fingerprint as credential ID.
	fp := sha256.Sum256([]byte("der"))
	want := &User{Name: "alice", UID: "uid-1", Groups: []string{"dev", "ops", "system:authenticated"},
		Extra: map[string][]string{credentialIDKey: {"X509SHA256=" + hex.EncodeToString(fp[:])}}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("Authenticate = %+v, want %+v", u, want)
	}
	if !reflect.DeepEqual(cert.Subject.Organization, []string{"dev", "ops"}) {
		t.Errorf("the certificate's Organization was modified: %v", cert.Subject.Organization)
	}
}

func TestAuthenticateNoCredentials(t *testing.T) {
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
			a := &Authenticator{} // no Review: a review would panic
			u, err := a.Authenticate(context.Background(), r)
			if u != nil || err != nil {
				t.Errorf("Authenticate = %+v, %v; want nil, nil", u, err)
			}
		})
	}
}

// reviewer is a Review that answers from tokens, or fails with fail, counting calls.
func reviewer(tokens map[string]authnv1.UserInfo, fail error) (func(context.Context, string) (*User, error), *atomic.Int32) {
	var calls atomic.Int32
	return func(_ context.Context, token string) (*User, error) {
		calls.Add(1)
		if fail != nil {
			return nil, fail
		}
		if ui, ok := tokens[token]; ok {
			return FromReview(ui), nil
		}
		return nil, nil
	}, &calls
}

func bearer(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestAuthenticateBearerToken(t *testing.T) {
	review, calls := reviewer(map[string]authnv1.UserInfo{
		"good": {Username: "bob", UID: "u1", Groups: []string{"devs"},
			Extra: map[string]authnv1.ExtraValue{"example.com/scope": {"read", "write"}}},
	}, nil)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	a := &Authenticator{Review: review, clock: clk}
	want := &User{Name: "bob", UID: "u1", Groups: []string{"devs", "system:authenticated"},
		Extra: map[string][]string{"example.com/scope": {"read", "write"}}}

	u, err := a.Authenticate(context.Background(), bearer("good"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("Authenticate = %+v, want %+v", u, want)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d token reviews, want 1", n)
	}

	// Within tokenCacheTTL the answer comes from the cache.
	u, err = a.Authenticate(context.Background(), bearer("good"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("second Authenticate = %+v, want %+v", u, want)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d token reviews after a second request within the TTL, want 1", n)
	}

	// Once the cached review expires, the token is reviewed again.
	clk.SetTime(clk.Now().Add(tokenCacheTTL + time.Second))
	if _, err := a.Authenticate(context.Background(), bearer("good")); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews after the cache expired, want 2", n)
	}
}

func TestAuthenticateBearerTokenRejected(t *testing.T) {
	review, calls := reviewer(nil, nil)
	a := &Authenticator{Review: review}
	for i := range 2 {
		u, err := a.Authenticate(context.Background(), bearer("bad"))
		if u != nil || !errors.Is(err, ErrInvalidToken) {
			t.Errorf("Authenticate #%d = %+v, %v; want nil, %v", i+1, u, err, ErrInvalidToken)
		}
	}
	// A rejection is cached too.
	if n := calls.Load(); n != 1 {
		t.Errorf("%d token reviews, want 1", n)
	}
}

func TestAuthenticateBearerTokenReviewFails(t *testing.T) {
	boom := errors.New("apiserver unreachable")
	review, calls := reviewer(nil, boom)
	a := &Authenticator{Review: review}
	for i := range 2 {
		u, err := a.Authenticate(context.Background(), bearer("any"))
		if u != nil || !errors.Is(err, boom) {
			t.Errorf("Authenticate #%d = %+v, %v; want nil, %v", i+1, u, err, boom)
		}
	}
	// An error is not cached: the next request tries again.
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews, want 2", n)
	}
}

// Upstream ignores a certificate without a CN and goes on to the token; the scheme of the
// Authorization header is case-insensitive.
func TestAuthenticateEmptyCNFallsBackAndBearerAnyCase(t *testing.T) {
	cert := &x509.Certificate{Subject: pkix.Name{Organization: []string{"system:masters"}}}
	r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	r.TLS = &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{cert}}}
	a := &Authenticator{}
	a.reviews().add(tokenKey("tok"), &User{Name: "bob"})
	for _, h := range []string{"Bearer tok", "bearer tok", "BEARER tok"} {
		r.Header.Set("Authorization", h)
		u, err := a.Authenticate(context.Background(), r)
		if err != nil || u == nil || u.Name != "bob" {
			t.Errorf("%q with an empty-CN certificate: got %+v, %v; want the token's user bob", h, u, err)
		}
	}
}

// The cache is keyed by the token's sha256, as upstream's token cache is: the proxy's memory
// holds no usable credential.
func TestTokenCacheHoldsNoToken(t *testing.T) {
	review, _ := reviewer(map[string]authnv1.UserInfo{"secret-good": {Username: "bob"}}, nil)
	a := &Authenticator{Review: review}
	a.Authenticate(context.Background(), bearer("secret-good"))
	a.Authenticate(context.Background(), bearer("secret-bad"))
	keys := cachedKeys(a)
	if len(keys) != 2 {
		t.Fatalf("%d cached reviews, want 2", len(keys))
	}
	for _, k := range keys {
		if strings.Contains(k, "secret") || len(k) != 64 {
			t.Errorf("cache key %q is not a sha256 hash of the token", k)
		}
	}
}

// A token reviewed before a reload is not reviewed again by the Authenticator that
// replaces the one that reviewed it, and the two caches are not shared.
func TestKeepReviews(t *testing.T) {
	review, calls := reviewer(map[string]authnv1.UserInfo{"good": {Username: "bob"}}, nil)
	prev := &Authenticator{Review: review}
	prev.Authenticate(context.Background(), bearer("good"))
	prev.Authenticate(context.Background(), bearer("bad"))
	a := &Authenticator{Review: review}
	a.KeepReviews(prev)
	if u, err := a.Authenticate(context.Background(), bearer("good")); err != nil || u.Name != "bob" {
		t.Errorf("Authenticate after KeepReviews = %+v, %v; want bob", u, err)
	}
	if _, err := a.Authenticate(context.Background(), bearer("bad")); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("a rejected token after KeepReviews: %v, want %v", err, ErrInvalidToken)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d token reviews, want the 2 before KeepReviews", n)
	}
	a.Authenticate(context.Background(), bearer("other"))
	if n := len(cachedKeys(prev)); n != 2 {
		t.Errorf("the previous cache holds %d reviews, want its own 2", n)
	}
}

// cachedKeys is every key a's cache holds, accepted and rejected.
func cachedKeys(a *Authenticator) []string {
	var keys []string
	for _, part := range []*cache.LRUExpireCache{a.reviews().accepted, a.reviews().rejected} {
		for _, k := range part.Keys() {
			keys = append(keys, k.(string))
		}
	}
	return keys
}
