package mvp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/report"
)

// failT stands in for *testing.T in this package's one ginkgo run: the outcomes are read
// from the report and from what the fake server was asked.
type failT struct{ failed bool }

func (f *failT) Fail() { f.failed = true }

// TestRefusedWriteDeletesOnlyItsOwn runs refusedWrite's create through ginkgo against a
// fake apiserver holding a cluster-scoped object named as the old fixed name
// (skewcheck-spoofed), someone else's. A create the server refuses must leave that object
// alone when the test's cleanup runs (it deleted it by that name); a create the server lets
// through must have its own object deleted, and that one only.
func TestRefusedWriteDeletesOnlyItsOwn(t *testing.T) {
	gvr := discovery.GVR{Group: "storage.k8s.io", Version: "v1", Resource: "volumeattributesclasses", Kind: "VolumeAttributesClass",
		Verbs: []string{"create", "delete", "get", "list"}}
	collection := gvr.CollectionPath("")
	var mu sync.Mutex
	var made, deletes []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == collection:
			if r.Header.Get("Authorization") == "Bearer user" {
				http.Error(w, `{"kind":"Status","code":403,"reason":"Forbidden"}`, http.StatusForbidden)
				return
			}
			body, _ := io.ReadAll(r.Body)
			var obj struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			json.Unmarshal(body, &obj)
			made = append(made, obj.Metadata.Name)
			w.WriteHeader(http.StatusCreated)
			w.Write(body)
		case r.Method == http.MethodDelete:
			deletes = append(deletes, r.URL.Path)
			if name := strings.TrimPrefix(r.URL.Path, collection+"/"); name == "skewcheck-spoofed" || slices.Contains(made, name) {
				w.Write([]byte(`{"kind":"Status","status":"Success"}`))
				return
			}
			http.Error(w, `{"kind":"Status","code":404,"reason":"NotFound"}`, http.StatusNotFound)
		default:
			http.Error(w, "not served by this fake", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	peer := &framework.Endpoint{Name: "apiserver-2", Version: "v1.36.3", URL: srv.URL,
		Admin: &rest.Config{Host: srv.URL, BearerToken: "admin"}, User: &rest.Config{Host: srv.URL, BearerToken: "user"}}
	route := framework.Route{Entry: peer, Peer: peer, Peers: []*framework.Endpoint{peer}, GVR: gvr}
	create := func(prefix string, as framework.Identity, want int) func(context.Context, *framework.Env) {
		return func(ctx context.Context, _ *framework.Env) {
			obj := refusedWrite(route, prefix)
			Expect(peer.Do(ctx, framework.Request{Method: "POST", Path: collection, Body: obj, As: as})).To(framework.HaveStatus(want))
		}
	}
	tests := []framework.Test{
		{ID: "T-refused", Profile: "p", Makes: refused, Run: create("skewcheck-spoofed", framework.AsUser, 403)},
		{ID: "T-let-through", Profile: "p", Makes: refused, Run: create("skewcheck-let-through", framework.AsAdmin, 201)},
	}
	target := &framework.Target{Kind: "existing", Unowned: true, Run: "20261202-000000-abcde", Namespace: "skewcheck-20261202-000000-abcde",
		Endpoints: []*framework.Endpoint{peer}}
	rep := framework.Run(&failT{}, &framework.Env{Target: target, Timeouts: framework.DefaultTimeouts()}, tests, framework.RunOptions{Seed: 1})
	for _, tc := range rep.Tests {
		if tc.Result != report.Passed {
			t.Errorf("%s: %s %s, want passed", tc.ID, tc.Result, tc.Failure)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(deletes, collection+"/skewcheck-spoofed") {
		t.Errorf("the cleanup of a refused create deleted %s/skewcheck-spoofed, which the run never made (deletes %v)", collection, deletes)
	}
	if len(made) != 1 {
		t.Fatalf("the fake server made %v, want the one object let through", made)
	}
	if !slices.Contains(deletes, collection+"/"+made[0]) {
		t.Errorf("the object the server let through, %s, was not deleted when its test ended (deletes %v)", made[0], deletes)
	}
	for _, d := range deletes {
		if name := strings.TrimPrefix(d, collection+"/"); name != made[0] && !strings.HasPrefix(name, "skewcheck-spoofed-") {
			t.Errorf("the cleanups deleted %s, neither what the run made nor a name of its own", d)
		}
	}
}
