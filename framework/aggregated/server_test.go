package aggregated

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

var gadgets = discovery.GVR{Group: "a.aggregated.skewcheck.io", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true,
	Verbs: []string{"create", "delete", "deletecollection", "get", "list"}}

// client trusts only the server's CA bundle and asks for its server name, as an aggregator
// does, while dialling the address it listens on.
func client(t *testing.T, s *Server) *http.Client {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.CABundle) {
		t.Fatal("the CA bundle holds no certificate")
	}
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: s.ServerName}, ForceAttemptHTTP2: true}}
}

func do(t *testing.T, c *http.Client, s *Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

func TestServerServesDiscoveryAndObjects(t *testing.T) {
	s, err := Start(gadgets, "skewcheck-a.default.svc", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := client(t, s)

	code, list := do(t, c, s, "GET", "/apis/"+gadgets.GroupVersion(), "")
	if code != 200 || list["groupVersion"] != gadgets.GroupVersion() {
		t.Fatalf("legacy discovery of the group-version: %d %v", code, list)
	}
	resources, _ := list["resources"].([]any)
	if len(resources) != 1 || resources[0].(map[string]any)["name"] != "gadgets" {
		t.Fatalf("discovery lists %v, want gadgets alone", resources)
	}

	coll := gadgets.CollectionPath("default")
	for _, obj := range []string{
		`{"metadata":{"name":"one","labels":{"k":"a"}}}`,
		`{"metadata":{"name":"two","labels":{"k":"b"}}}`,
	} {
		if code, _ := do(t, c, s, "POST", coll, obj); code != 201 {
			t.Fatalf("create %s: %d", obj, code)
		}
	}
	if code, _ := do(t, c, s, "POST", coll, `{"metadata":{"name":"one"}}`); code != 409 {
		t.Fatalf("creating one again answered %d, want 409", code)
	}
	if code, obj := do(t, c, s, "GET", coll+"/one", ""); code != 200 || obj["kind"] != "Gadget" {
		t.Fatalf("get one: %d %v", code, obj)
	}
	if _, l := do(t, c, s, "GET", coll+"?labelSelector=k%3Da", ""); len(l["items"].([]any)) != 1 {
		t.Fatalf("list k=a: %v, want one item", l["items"])
	}
	if code, _ := do(t, c, s, "DELETE", coll+"?labelSelector=k%3Db", ""); code != 200 {
		t.Fatalf("delete k=b: %d", code)
	}
	if code, _ := do(t, c, s, "GET", coll+"/two", ""); code != 404 {
		t.Fatalf("two after its deletion by label: %d, want 404", code)
	}
	if code, _ := do(t, c, s, "DELETE", coll+"/one", ""); code != 200 {
		t.Fatalf("delete one: %d", code)
	}
	if code, _ := do(t, c, s, "GET", "/apis/other/v1", ""); code != 404 {
		t.Fatalf("a group-version it does not serve answered %d, want 404", code)
	}
}

func TestServerStopsAndResumesOnItsPort(t *testing.T) {
	s, err := Start(gadgets, "skewcheck-a.default.svc", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := client(t, s)
	if code, _ := do(t, c, s, "POST", gadgets.CollectionPath("default"), `{"metadata":{"name":"kept"}}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	port := s.Port()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	c.CloseIdleConnections()
	if _, err := c.Get(s.URL() + "/healthz"); err == nil {
		t.Fatal("a stopped server answered")
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if s.Port() != port {
		t.Fatalf("resumed on port %d, was %d", s.Port(), port)
	}
	if code, _ := do(t, c, s, "GET", gadgets.CollectionPath("default")+"/kept", ""); code != 200 {
		t.Fatalf("the object made before the stop: %d after resuming, want 200", code)
	}
}
