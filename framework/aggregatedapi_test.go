package framework

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// TestAggregatedAPIRefusedLeavesTheirAPIService: an APIService create answered 409 (one of
// that name is already there, someone else's) removes the Service the test made and
// nothing else: the APIService it did not make is never deleted.
func TestAggregatedAPIRefusedLeavesTheirAPIService(t *testing.T) {
	g := fixtures.AggregatedGVR("taken")
	service := "skewcheck-taken"
	var mu sync.Mutex
	var deletes []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == servicesPath:
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"kind":"Service","metadata":{"name":"` + service + `","namespace":"default","uid":"u1"}}`))
		case r.Method == http.MethodGet && r.URL.Path == servicesPath+"/"+service:
			w.Write([]byte(`{"kind":"Service","metadata":{"name":"` + service + `"}}`))
		case r.Method == http.MethodPost && r.URL.Path == apiServicesPath:
			http.Error(w, `{"kind":"Status","code":409,"reason":"AlreadyExists"}`, http.StatusConflict)
		case r.Method == http.MethodDelete:
			deletes = append(deletes, r.URL.Path)
			w.Write([]byte(`{"kind":"Status","status":"Success"}`))
		default:
			http.Error(w, "not served by this fake", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	origin := &Endpoint{Name: "apiserver-1", URL: srv.URL, Admin: &rest.Config{Host: srv.URL}}
	target := &Target{Endpoints: []*Endpoint{origin}, ExtensionHost: &ExtensionHost{Name: "127.0.0.1", Listen: "127.0.0.1"}}
	a, err := StartAggregatedAPI(context.Background(), target, origin, g)
	if err == nil || !strings.Contains(err.Error(), "creating the APIService v1."+g.Group) {
		t.Fatalf("StartAggregatedAPI with the APIService's name taken: %v, %v; want the APIService's create refused", a, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{servicesPath + "/" + service}; !slices.Equal(deletes, want) {
		t.Errorf("deleted %v, want only the Service made, %v: the APIService v1.%s was not the test's", deletes, want, g.Group)
	}
}
