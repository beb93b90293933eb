package faults

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Against a front with short timeouts (headers 1 s, the whole request 2 s), the slow
// client sees what it must: unfinished headers closed at about 1 s with no answer, a
// trickling body answered (400, the handler's read failing) at about 2 s, and a slow
// reader of an endless answer never cut; healing ends every connection.
func TestSlowClientSeesTheFrontCut(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "true" {
			for r.Context().Err() == nil {
				if _, err := w.Write([]byte(strings.Repeat("e", 1024))); err != nil {
					return
				}
			}
			return
		}
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "the body did not come", http.StatusBadRequest)
		}
	}))
	// Headers get 1 s; the whole request, its body included, 2 s.
	srv.Config.ReadHeaderTimeout, srv.Config.ReadTimeout = time.Second, 2*time.Second
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	entry := &framework.Endpoint{Name: "front", URL: srv.URL, Admin: &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}}
	route := framework.Route{Entry: entry, GVR: discovery.GVR{Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true}}

	f := SlowClient(entry, route, 2)
	ctx := context.Background()
	if err := f.Inject(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3500 * time.Millisecond)
	if err := f.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	notes := f.(Observer).Observed().Notes
	t.Log(notes)
	want := []string{"slow headers: 2 of 2 cut after 1.", "slow bodies: 2 of 2 cut after 2.", "slow readers: 2 of 2 held 4 s, none cut"}
	if len(notes) != len(want) {
		t.Fatalf("notes %q, want one per kind", notes)
	}
	for i, w := range want {
		if !strings.HasPrefix(notes[i], w) {
			t.Errorf("note %q, want it to begin %q", notes[i], w)
		}
	}
	if !strings.Contains(notes[1], "400 Bad Request") || !strings.HasSuffix(notes[0], "(closed)") {
		t.Errorf("the bodies must carry the front's answer, the headers none: %q", notes)
	}
}
