package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"

	"github.com/skewcheck/skewcheck/reference/internal/wire"
)

// FuzzGatewayServeHTTP sends the gateway whatever a client may send and checks that the
// identity an upstream sees never comes from the client:
//   - a Connection header naming the identity headers is refused 400 and nothing is sent
//     (TestConnectionCannotDropImpersonation);
//   - no credentials or a rejected token is 401 and nothing is sent
//     (TestAnonymousRefusedUnlessTheClusterLetsItIn, TestServeHTTPAuthentication);
//   - what arrives impersonates the client, or whom it asked to impersonate only where a
//     SubjectAccessReview allowed each user, group, uid and extra; the client's
//     Authorization, X-Remote-* and loop marker never arrive (TestForwardImpersonatesTheClient).
func FuzzGatewayServeHTTP(f *testing.F) {
	for _, s := range [][3]string{
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob"},
		{"GET", "/api/v1/namespaces/kube-system/secrets?limit=1", "Authorization: Bearer bob\r\nConnection: Impersonate-User, Impersonate-Group"},
		{"GET", "/api/v1/namespaces/kube-system/secrets", "Authorization: Bearer bob\r\nConnection: impersonate-user"},
		{"GET", "/api/v1/namespaces/kube-system/secrets", "Authorization: Bearer bob\r\nConnection: keep-alive, X-Remote-Uid"},
		{"GET", "/api/v1/namespaces/kube-system/secrets", "Authorization: Bearer bob\r\nConnection: Authorization"},
		{"GET", "/api/v1/namespaces/kube-system/secrets", "Authorization: Bearer bob\r\nConnection: X-Kubernetes-Peer-Proxied"},
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "Authorization: Bearer bob\r\nContent-Length: 0"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nX-Remote-User: admin\r\nX-Remote-Group: system:masters\r\nX-Kubernetes-Peer-Proxied: true"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: ok-alice"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: ok-alice\r\nImpersonate-Group: ok-devs\r\nImpersonate-Uid: ok-1\r\nImpersonate-Extra-Scopes: ok-all"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: system:serviceaccount:ok-ns:ok-sa"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: ok-alice\r\nImpersonate-Group: system:masters"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: admin"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-Group: ok-devs"},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer bob\r\nImpersonate-User: ok-alice\r\nImpersonate-Extra-Example.com%2fscope: ok-x"},
		{"GET", "/api/v1/namespaces/default/pods/p/exec?command=true", "Authorization: Bearer bob\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1"},
		{"GET", "/api/v1/namespaces/default/pods", ""},
		{"GET", "/api/v1/namespaces/default/pods", "Authorization: Bearer mallory"},
		{"GET", "/version", "Authorization: Basic eDp5"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	var mu sync.Mutex
	var seen []http.Header
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	f.Cleanup(up.Close)
	f.Fuzz(func(t *testing.T, method, target, header string) {
		r, ok := wire.Request(method, target, header, "gw.test")
		if !ok {
			return
		}
		in := r.Header.Clone()
		g := testGateway(t, Defects{}, up.URL)
		// Whom bob may impersonate: what is named "ok-..." (a service account by its
		// namespace and name), nothing else.
		allowed := map[string]bool{}
		g.state.Load().clusters[0].impersonation = &impersonationAuthorizer{review: func(_ context.Context, sar *authzv1.SubjectAccessReview) (bool, error) {
			a := sar.Spec.ResourceAttributes
			ok := strings.HasPrefix(a.Name, "ok-") && (a.Resource != "serviceaccounts" || strings.HasPrefix(a.Namespace, "ok-"))
			if ok && a.Resource == "serviceaccounts" {
				allowed["serviceaccounts/="+a.Namespace+":"+a.Name] = true
			} else if ok {
				allowed[a.Resource+"/"+a.Subresource+"="+a.Name] = true
			}
			return ok, nil
		}}
		mu.Lock()
		seen = nil
		mu.Unlock()
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		mu.Lock()
		out := seen
		mu.Unlock()

		scheme, token, _ := strings.Cut(in.Get("Authorization"), " ")
		switch token = strings.TrimSpace(token); {
		case wire.ConnectionNames(in, "Impersonate-", "X-Remote-", "Authorization", headerPeerProxied):
			if w.Code != http.StatusBadRequest || len(out) != 0 {
				t.Fatalf("Connection %q names identity headers: answer %d after %d upstream requests, want 400 and none", in.Values("Connection"), w.Code, len(out))
			}
			return
		case !strings.EqualFold(scheme, "bearer") || token != "bob":
			if w.Code != http.StatusUnauthorized || len(out) != 0 {
				t.Fatalf("Authorization %q: answer %d after %d upstream requests, want 401 and none", in.Get("Authorization"), w.Code, len(out))
			}
			return
		}
		for _, h := range out {
			for k := range h {
				lk := strings.ToLower(k)
				if lk == "authorization" || strings.HasPrefix(lk, "x-remote-") || lk == strings.ToLower(headerPeerProxied) {
					t.Fatalf("the client's %s reached the upstream: %v", k, h)
				}
			}
			user := h.Get("Impersonate-User")
			if user == "bob" {
				if g := h.Values("Impersonate-Group"); !slices.Equal(g, []string{"devs", "system:authenticated"}) || h.Get("Impersonate-Uid") != "" {
					t.Fatalf("bob arrived in groups %q uid %q, want devs and system:authenticated (client headers %v)", g, h.Get("Impersonate-Uid"), in)
				}
				continue
			}
			asked := "users/=" + user
			if ns, sa, ok := splitServiceAccount(user); ok {
				asked = "serviceaccounts/=" + ns + ":" + sa
			}
			if !allowed[asked] {
				t.Fatalf("the upstream saw Impersonate-User %q, neither bob nor whom a review let bob impersonate (%v; client headers %v)", user, allowed, in)
			}
			for _, g := range h.Values("Impersonate-Group") {
				derived := g == "system:authenticated" || g == "system:serviceaccounts" || strings.HasPrefix(g, "system:serviceaccounts:")
				if !allowed["groups/="+g] && !derived {
					t.Fatalf("the upstream saw Impersonate-Group %q, which no review allowed (%v)", g, allowed)
				}
			}
			if uid := h.Get("Impersonate-Uid"); uid != "" && !allowed["uids/="+uid] {
				t.Fatalf("the upstream saw Impersonate-Uid %q, which no review allowed (%v)", uid, allowed)
			}
			for k, vs := range h {
				rest, ok := strings.CutPrefix(k, "Impersonate-Extra-")
				if !ok {
					continue
				}
				key, err := url.PathUnescape(strings.ToLower(rest)) // as the apiserver reads it
				if err != nil {
					key = strings.ToLower(rest)
				}
				for _, v := range vs {
					if !allowed["userextras/"+key+"="+v] {
						t.Fatalf("the upstream saw the extra %s=%q, which no review allowed (%v)", key, v, allowed)
					}
				}
			}
		}
	})
}
