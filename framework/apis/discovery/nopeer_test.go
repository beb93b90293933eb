package discovery

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// A server older than 1.30 has aggregated discovery only as v2beta1: what it serves is
// read from that, after v2 with and without the nopeer profile were refused (406), as a
// 1.27 to 1.29 kube-apiserver refuses them.
func TestServedFallsBackToV2Beta1(t *testing.T) {
	var asked []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept := r.Header.Get("Accept")
		asked = append(asked, r.URL.Path+" "+accept)
		if !strings.Contains(accept, "v=v2beta1") {
			w.WriteHeader(http.StatusNotAcceptable)
			return
		}
		w.Header().Set("Content-Type", AggregatedV2Beta1)
		if r.URL.Path == "/api" {
			w.Write([]byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1","items":[{"versions":[{"version":"v1","resources":[{"resource":"pods","scope":"Namespaced","verbs":["get"]}]}]}]}`))
			return
		}
		w.Write([]byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1","items":[{"metadata":{"name":"batch"},"versions":[{"version":"v1","resources":[{"resource":"jobs","scope":"Namespaced","verbs":["get"]}]}]}]}`))
	}))
	defer s.Close()
	set, err := Served(context.Background(), &rest.Config{Host: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 2 || !set.Has("core/v1/pods") || !set.Has("batch/v1/jobs") {
		t.Errorf("served %v, want core pods and batch jobs; asked %q", set.Sorted(), asked)
	}
	if len(asked) != 6 {
		t.Errorf("asked %q, want nopeer v2, v2 and v2beta1 for /api and /apis", asked)
	}
}

// A server that answers discovery with a redirect is not followed: the document would come
// from wherever it points (here plain http), without the verification cfg asks for.
func TestFetchDoesNotFollowRedirects(t *testing.T) {
	var plainHits atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHits.Add(1)
		w.Header().Set("Content-Type", AggregatedV2)
		w.Write([]byte(`{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"evil.example.com"},"versions":[{"version":"v1","resources":[{"resource":"things","scope":"Namespaced","verbs":["get"]}]}]}]}`))
	}))
	defer plain.Close()
	verified := httptest.NewTLSServer(http.RedirectHandler(plain.URL+"/apis", http.StatusFound))
	defer verified.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: verified.Certificate().Raw})
	_, err := Fetch(context.Background(), &rest.Config{Host: verified.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}, "/apis", AggregatedV2NoPeer)
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("Fetch from a server redirecting to %s = %v, want an error saying it redirects", plain.URL, err)
	}
	if n := plainHits.Load(); n != 0 {
		t.Errorf("the plaintext server the redirect points at got %d requests", n)
	}
}
