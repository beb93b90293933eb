package authn

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// An extra key is the authenticator's to choose (a TokenReview webhook's, say), and
// path-escaping leaves ':', '=' and '@' as they are, which no header name may hold: the
// request carrying them failed in the proxy's HTTP client. Found by FuzzHeadersSet
// (testdata/fuzz/FuzzHeadersSet). Over the wire, the apiserver must read every key back.
func TestHeadersSetExtraKeysCrossTheWire(t *testing.T) {
	keys := []string{"urn:example:scope", "a=b@c", "example.com/scope", "100%", "é"}
	got := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range r.Header {
			if rest, ok := strings.CutPrefix(k, "X-Remote-Extra-"); ok {
				key, err := url.PathUnescape(strings.ToLower(rest)) // as the apiserver reads it
				if err != nil {
					key = rest
				}
				got[key] = vs
			}
		}
	}))
	defer srv.Close()
	u := &User{Name: "alice", Extra: map[string][]string{}}
	want := map[string][]string{}
	for _, k := range keys {
		u.Extra[k] = []string{"v-" + k}
		want[k] = []string{"v-" + k}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	Headers{User: "X-Remote-User", Group: "X-Remote-Group", UID: "X-Remote-Uid", ExtraPrefix: "X-Remote-Extra-"}.Set(req.Header, u)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("sending a user with extra keys %q: %v", keys, err)
	}
	resp.Body.Close()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the server read the extra %q, want %q", got, want)
	}
}
