package authn

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/http/httpguts"
)

// wireHeader is block read as net/http's server reads a request's header: canonical keys,
// and false for what the server refuses with 400 (an invalid name or value).
func wireHeader(block string) (http.Header, bool) {
	mh, err := textproto.NewReader(bufio.NewReader(strings.NewReader(block + "\r\n\r\n"))).ReadMIMEHeader()
	if err != nil {
		return nil, false
	}
	for k, vs := range mh {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, false
			}
		}
	}
	return http.Header(mh), true
}

// asciiLower lower-cases ASCII letters only, as strings.ToLower does to a header name made
// of ASCII bytes (every escaped key is).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FuzzHeadersSet: whatever extra a user has (a TokenReview's keys are the webhook's to
// choose), Set writes header names an HTTP client may send, and the apiserver, reading them
// as its request-header authenticator and impersonation filter do (the name after the
// prefix lower-cased, then path-unescaped), gets the user's extra back. TestHeadersSet and
// peerproxy's TestSetIdentity assert the same of example.com/scope.
func FuzzHeadersSet(f *testing.F) {
	f.Add("alice", "u1", "dev\nsystem:authenticated", "example.com/scope", "read")
	f.Add("dave", "", "", "authentication.kubernetes.io/credential-id", "JTI=abc")
	f.Add("bob", "", "", "scopes", "all")
	f.Add("x", "", "", "Example.COM/Scope", "v")
	f.Add("x", "", "", "urn:example:scope", "v")
	f.Add("x", "", "", "a=b@c", "v")
	f.Add("x", "", "", "100%", "v")
	f.Add("x", "", "", "é/ß", "v")
	f.Add("x", "", "", "", "v")
	hs := Headers{User: "X-Remote-User", Group: "X-Remote-Group", UID: "X-Remote-Uid", ExtraPrefix: "X-Remote-Extra-"}
	f.Fuzz(func(t *testing.T, name, uid, groups, key, value string) {
		u := &User{Name: name, UID: uid, Extra: map[string][]string{key: {value}}}
		if groups != "" {
			u.Groups = strings.Split(groups, "\n")
		}
		h := http.Header{}
		hs.Set(h, u)
		got := map[string][]string{}
		for k, vs := range h {
			if !httpguts.ValidHeaderFieldName(k) {
				t.Fatalf("extra key %q: Set wrote the header name %q, which an HTTP client refuses to send: the request fails", key, k)
			}
			if !strings.HasPrefix(k, http.CanonicalHeaderKey(hs.ExtraPrefix)) {
				continue
			}
			read := strings.ToLower(k[len(hs.ExtraPrefix):])
			if unescaped, err := url.PathUnescape(read); err == nil {
				read = unescaped
			}
			got[read] = append(got[read], vs...)
		}
		if want := map[string][]string{asciiLower(key): {value}}; !reflect.DeepEqual(got, want) {
			t.Fatalf("extra %q: the apiserver reads back %q from %v, want %q", key, got, h, want)
		}
	})
}

// FuzzStripIdentity: whatever header a client sends, none it could claim an identity with
// is left after StripIdentity, whatever its case. TestStripIdentity (and peerproxy's
// TestStripIdentityFromTheWire) assert the same for a fixed set.
func FuzzStripIdentity(f *testing.F) {
	f.Add("X-Remote-User: mallory\r\nx-remote-group: system:masters\r\nAuthorization: Bearer secret\r\nAccept: application/json")
	f.Add("x-REMOTE-extra-example.com%2Fscope: all\r\nImpersonate-User: bob\r\nimpersonate-extra-scopes: all")
	f.Add("X-Remotely: kept\r\nauthorization: Basic eDp5\r\nX-Kubernetes-Peer-Proxied: true")
	f.Fuzz(func(t *testing.T, block string) {
		h, ok := wireHeader(block)
		if !ok {
			return
		}
		prefixes := []string{"X-Remote-", "Impersonate-", "X-Kubernetes-Peer-Proxied"}
		StripIdentity(h, prefixes...)
		for k := range h {
			lk := strings.ToLower(k)
			if lk == "authorization" {
				t.Fatalf("%q survived StripIdentity: %v", k, h)
			}
			for _, p := range prefixes {
				if strings.HasPrefix(lk, strings.ToLower(p)) {
					t.Fatalf("%q survived StripIdentity(%q): %v", k, p, h)
				}
			}
		}
	})
}

// FuzzNamedHopByHop: when NamedHopByHop finds nothing in a request's Connection header,
// the hop-by-hop removal a proxy does on the way out (net/http/httputil's ReverseProxy, the
// references' own) removes none of the protected headers the proxy then sends; when it
// finds an entry, that entry names a protected header. TestNamedHopByHop asserts the same
// for the suites' Connection values, and peerproxy's TestServeHTTPRefusesConnectionNaming
// IdentityHeaders and the gateway's TestConnectionCannotDropImpersonation end to end.
func FuzzNamedHopByHop(f *testing.F) {
	for _, c := range []string{
		"X-Remote-User, X-Remote-Group, X-Remote-Uid, X-Remote-Extra-Scopes",
		"Impersonate-User, Impersonate-Group, Impersonate-Uid, Impersonate-Extra-Scopes",
		"Authorization", "X-Kubernetes-Peer-Proxied", "impersonate-user", "keep-alive, Impersonate-Group",
		"Upgrade", "keep-alive", "close", "\tx-remote-user ,", ",,X-REMOTE-EXTRA-A%2Fb",
	} {
		f.Add("Connection: " + c)
	}
	f.Add("Connection: keep-alive\r\nConnection: X-Remote-Uid")
	protected := []string{"X-Remote-User", "X-Remote-Group", "X-Remote-Uid", "X-Remote-Extra-Scopes",
		"Impersonate-User", "Impersonate-Group", "Impersonate-Uid", "Impersonate-Extra-Scopes", "X-Kubernetes-Peer-Proxied"}
	prefixes := []string{"X-Remote-", "Impersonate-", "X-Kubernetes-Peer-Proxied"}
	f.Fuzz(func(t *testing.T, block string) {
		h, ok := wireHeader(block)
		if !ok {
			return
		}
		named := NamedHopByHop(h, prefixes...)
		if named != "" && !hasAnyPrefix(http.CanonicalHeaderKey(named), prefixes) {
			t.Fatalf("NamedHopByHop(%v) = %q, which names no protected header", h, named)
		}
		// The protected headers as a proxy that set them before the removal would have
		// them: what reaches Rewrite (run after the removal) is what would arrive.
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		r.Header = h.Clone()
		for _, p := range protected {
			r.Header.Set(p, "set-by-proxy")
		}
		var after http.Header
		(&httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: "upstream.test"})
			after = pr.Out.Header.Clone()
		}, Transport: answer200{}}).ServeHTTP(httptest.NewRecorder(), r)
		if after == nil {
			t.Fatalf("the request %v was not forwarded", h)
		}
		if named != "" {
			return
		}
		for _, p := range protected {
			if after.Get(p) == "" {
				t.Fatalf("Connection %q: hop-by-hop removal drops %s, and NamedHopByHop found nothing", h.Values("Connection"), p)
			}
		}
	})
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// answer200 is an upstream that answers every request 200 at once.
type answer200 struct{}

func (answer200) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// FuzzAuthenticate: a client's Authorization header makes it a user only through a review
// of exactly its bearer token; a token the review rejects is ErrInvalidToken, never
// anonymous (TestAuthenticateBearerTokenRejected); no bearer token, no review and nobody
// (TestAuthenticateNoCredentials).
func FuzzAuthenticate(f *testing.F) {
	for _, v := range []string{"Bearer good", "bearer good", "BEARER  good ", "Bearer bad", "Bearer ", "Basic eDp5", "good", "Bearer good extra", "Bearer\tgood"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, authorization string) {
		h, ok := wireHeader("Authorization: " + authorization)
		if !ok {
			return
		}
		var reviewed []string
		a := &Authenticator{Review: func(_ context.Context, token string) (*User, error) {
			reviewed = append(reviewed, token)
			if token == "good" {
				return &User{Name: "bob", Groups: []string{AuthenticatedGroup}}, nil
			}
			return nil, nil
		}}
		r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		r.Header = h
		u, err := a.Authenticate(context.Background(), r)
		value := h.Get("Authorization")
		scheme, token, _ := strings.Cut(value, " ")
		token = strings.TrimSpace(token)
		isBearer := strings.EqualFold(scheme, "bearer") && token != ""
		switch {
		case !isBearer && (u != nil || err != nil || len(reviewed) != 0):
			t.Fatalf("Authorization %q carries no bearer token, yet the user is %+v, %v after reviews %q", value, u, err, reviewed)
		case isBearer && (len(reviewed) != 1 || reviewed[0] != token):
			t.Fatalf("Authorization %q: reviewed %q, want exactly the token %q", value, reviewed, token)
		case isBearer && token == "good" && (u == nil || u.Name != "bob" || err != nil):
			t.Fatalf("Authorization %q: user %+v, %v; want bob", value, u, err)
		case isBearer && token != "good" && (u != nil || err != ErrInvalidToken):
			t.Fatalf("Authorization %q: a rejected token gives %+v, %v; want ErrInvalidToken and no user", value, u, err)
		}
	})
}
