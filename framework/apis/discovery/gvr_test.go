package discovery

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

var (
	pods = GVR{Group: "", Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "list", "create"}}
	deps = GVR{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true, Verbs: []string{"get", "list"}}
	jobs = GVR{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
	mapb = GVR{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings", Kind: "MutatingAdmissionPolicyBinding"}
)

func setOf(gs ...GVR) Set {
	s := Set{}
	for _, g := range gs {
		s[g.Key()] = g
	}
	return s
}

func keys(gs []GVR) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		out = append(out, g.Key())
	}
	return out
}

func TestGVRNames(t *testing.T) {
	cases := []struct {
		name                    string
		g                       GVR
		key, groupVersion, path string
	}{
		{"core", pods, "core/v1/pods", "v1", "/api/v1/pods"},
		{"named group", deps, "apps/v1/deployments", "apps/v1", "/apis/apps/v1/deployments"},
		{"dotted group", mapb, "admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings",
			"admissionregistration.k8s.io/v1", "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"},
		{"core beta version", GVR{Version: "v1beta1", Resource: "things"}, "core/v1beta1/things", "v1beta1", "/api/v1beta1/things"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.g.Key(); got != tc.key {
				t.Errorf("Key() = %q, want %q", got, tc.key)
			}
			if got := tc.g.String(); got != tc.key {
				t.Errorf("String() = %q, want %q", got, tc.key)
			}
			if got := tc.g.GroupVersion(); got != tc.groupVersion {
				t.Errorf("GroupVersion() = %q, want %q", got, tc.groupVersion)
			}
			if got := tc.g.Path(); got != tc.path {
				t.Errorf("Path() = %q, want %q", got, tc.path)
			}
		})
	}
}

func TestGVRCan(t *testing.T) {
	cases := []struct {
		verb string
		want bool
	}{
		{"get", true}, {"create", true}, {"delete", false}, {"", false}, {"GET", false},
	}
	for _, tc := range cases {
		if got := pods.Can(tc.verb); got != tc.want {
			t.Errorf("pods.Can(%q) = %v, want %v", tc.verb, got, tc.want)
		}
	}
	if (GVR{}).Can("get") {
		t.Error("a GVR without verbs can nothing")
	}
}

func TestSetMissing(t *testing.T) {
	cases := []struct {
		name   string
		s, o   Set
		expect []string
	}{
		{"same", setOf(pods, deps), setOf(pods, deps), []string{}},
		{"other has more", setOf(pods), setOf(pods, deps, mapb), []string{"admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings", "apps/v1/deployments"}},
		{"s has more", setOf(pods, deps), setOf(pods), []string{}},
		{"disjoint", setOf(pods), setOf(jobs), []string{"batch/v1/jobs"}},
		{"empty s", Set{}, setOf(jobs, pods), []string{"batch/v1/jobs", "core/v1/pods"}},
		{"nil other", setOf(pods), nil, []string{}},
		{"nil s", nil, setOf(pods), []string{"core/v1/pods"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.s.Missing(tc.o)
			if m == nil {
				t.Fatal("Missing returned a nil set")
			}
			if got := keys(m.Sorted()); !reflect.DeepEqual(got, tc.expect) {
				t.Errorf("Missing = %v, want %v", got, tc.expect)
			}
		})
	}
}

func TestUnion(t *testing.T) {
	cases := []struct {
		name   string
		sets   []Set
		expect []string
	}{
		{"none", nil, []string{}},
		{"one", []Set{setOf(pods)}, []string{"core/v1/pods"}},
		{"overlap", []Set{setOf(pods, deps), setOf(deps, jobs)}, []string{"apps/v1/deployments", "batch/v1/jobs", "core/v1/pods"}},
		{"with nil", []Set{nil, setOf(jobs)}, []string{"batch/v1/jobs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := keys(Union(tc.sets...).Sorted()); !reflect.DeepEqual(got, tc.expect) {
				t.Errorf("Union = %v, want %v", got, tc.expect)
			}
		})
	}
	// Union must not alias its inputs.
	a := setOf(pods)
	u := Union(a)
	u[jobs.Key()] = jobs
	if a.Has(jobs.Key()) {
		t.Error("adding to the union changed an input set")
	}
}

func TestSetHas(t *testing.T) {
	s := setOf(pods, deps)
	cases := []struct {
		key  string
		want bool
	}{
		{"core/v1/pods", true}, {"apps/v1/deployments", true}, {"/v1/pods", false}, {"v1/pods", false}, {"batch/v1/jobs", false},
	}
	for _, tc := range cases {
		if got := s.Has(tc.key); got != tc.want {
			t.Errorf("Has(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func TestHasGroupVersion(t *testing.T) {
	s := setOf(pods, deps, mapb)
	cases := []struct {
		group, version string
		want           bool
	}{
		{"", "v1", true},
		{"apps", "v1", true},
		{"apps", "v1beta1", false},
		{"batch", "v1", false},
		{"core", "v1", false}, // the empty group is "", not "core"
		{"admissionregistration.k8s.io", "v1", true},
	}
	for _, tc := range cases {
		if got := s.HasGroupVersion(tc.group, tc.version); got != tc.want {
			t.Errorf("HasGroupVersion(%q, %q) = %v, want %v", tc.group, tc.version, got, tc.want)
		}
	}
	if (Set{}).HasGroupVersion("", "v1") {
		t.Error("an empty set has no group-version")
	}
}

func TestSorted(t *testing.T) {
	s := setOf(pods, mapb, jobs, deps, GVR{Group: "apps", Version: "v1", Resource: "daemonsets"})
	want := []string{
		"admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings",
		"apps/v1/daemonsets",
		"apps/v1/deployments",
		"batch/v1/jobs",
		"core/v1/pods",
	}
	for i := 0; i < 20; i++ { // map order is random: the output must not be
		if got := keys(s.Sorted()); !reflect.DeepEqual(got, want) {
			t.Fatalf("Sorted = %v, want %v", got, want)
		}
	}
	if got := (Set{}).Sorted(); got == nil || len(got) != 0 {
		t.Errorf("Sorted of an empty set = %#v, want an empty non-nil slice", got)
	}
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name     string
		byServer map[string]Set
		want     []Skew
	}{
		{"no servers", nil, nil},
		{"all the same", map[string]Set{"a": setOf(pods, deps), "b": setOf(pods, deps)}, nil},
		{
			"one server lacks one",
			map[string]Set{"apiserver-1": setOf(pods), "apiserver-2": setOf(pods, mapb)},
			[]Skew{{GVR: mapb, ServedBy: []string{"apiserver-2"}, Missing: []string{"apiserver-1"}}},
		},
		{
			"three servers, sorted by key and by name",
			map[string]Set{
				"c": setOf(pods, jobs),
				"a": setOf(pods, deps),
				"b": setOf(pods, deps, jobs),
			},
			[]Skew{
				{GVR: deps, ServedBy: []string{"a", "b"}, Missing: []string{"c"}},
				{GVR: jobs, ServedBy: []string{"b", "c"}, Missing: []string{"a"}},
			},
		},
		{
			"an empty server misses everything",
			map[string]Set{"x": {}, "y": setOf(jobs, pods)},
			[]Skew{
				{GVR: jobs, ServedBy: []string{"y"}, Missing: []string{"x"}},
				{GVR: pods, ServedBy: []string{"y"}, Missing: []string{"x"}},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 10; i++ { // stable despite random map order
				got := Compare(tc.byServer)
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("Compare =\n%+v\nwant\n%+v", got, tc.want)
				}
			}
		})
	}
}

func TestParseKey(t *testing.T) {
	cases := []struct {
		key                      string
		group, version, resource string
		wantErr                  bool
	}{
		{key: "core/v1/pods", version: "v1", resource: "pods"},
		{key: "apps/v1/deployments", group: "apps", version: "v1", resource: "deployments"},
		{key: "admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings", group: "admissionregistration.k8s.io", version: "v1", resource: "mutatingadmissionpolicybindings"},
		{key: "", wantErr: true},
		{key: "pods", wantErr: true},
		{key: "v1/pods", wantErr: true},
		{key: "apps/v1/deployments/status", wantErr: true},
		{key: "apps//deployments", wantErr: true},
		{key: "apps/v1/", wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			g, v, r, err := ParseKey(tc.key)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParseKey(%q) = %q %q %q, want an error", tc.key, g, v, r)
				}
				if !strings.Contains(err.Error(), "group/version/resource") || !strings.Contains(err.Error(), tc.key) {
					t.Errorf("error %q should name the key and the expected form", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g != tc.group || v != tc.version || r != tc.resource {
				t.Errorf("ParseKey(%q) = %q %q %q, want %q %q %q", tc.key, g, v, r, tc.group, tc.version, tc.resource)
			}
		})
	}
}

func TestParseKeyRoundTrip(t *testing.T) {
	for _, g := range []GVR{pods, deps, jobs, mapb} {
		group, version, resource, err := ParseKey(g.Key())
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", g.Key(), err)
		}
		back := GVR{Group: group, Version: version, Resource: resource}
		if back.Key() != g.Key() || group != g.Group || version != g.Version || resource != g.Resource {
			t.Errorf("round trip of %q gave %+v", g.Key(), back)
		}
	}
}

// discoveryList is a small document with a core and a named group, as /api and /apis merge.
func discoveryList() *apidiscoveryv2.APIGroupDiscoveryList {
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items: []apidiscoveryv2.APIGroupDiscovery{
			{
				Versions: []apidiscoveryv2.APIVersionDiscovery{{
					Version: "v1",
					Resources: []apidiscoveryv2.APIResourceDiscovery{
						{
							Resource:     "pods",
							ResponseKind: &metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
							Scope:        apidiscoveryv2.ScopeNamespace,
							Verbs:        []string{"create", "get", "list"},
							Subresources: []apidiscoveryv2.APISubresourceDiscovery{
								{Subresource: "status", Verbs: []string{"get"}},
								{Subresource: "log", Verbs: []string{"get"}},
							},
						},
						{
							Resource:     "nodes",
							ResponseKind: &metav1.GroupVersionKind{Version: "v1", Kind: "Node"},
							Scope:        apidiscoveryv2.ScopeCluster,
							Verbs:        []string{"get"},
						},
					},
				}},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "batch"},
				Versions: []apidiscoveryv2.APIVersionDiscovery{
					{
						Version: "v1",
						Resources: []apidiscoveryv2.APIResourceDiscovery{{
							Resource:     "jobs",
							ResponseKind: &metav1.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"},
							Scope:        apidiscoveryv2.ScopeNamespace,
							Verbs:        []string{"create", "delete", "get"},
							Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status"}},
						}},
					},
					{
						Version:   "v1beta1",
						Freshness: apidiscoveryv2.DiscoveryFreshnessStale,
						Resources: []apidiscoveryv2.APIResourceDiscovery{{
							Resource: "cronjobs",
							Scope:    apidiscoveryv2.ScopeNamespace,
							// no ResponseKind: kind stays empty
						}},
					},
				},
			},
		},
	}
}

func wantFromList() Set {
	return setOf(
		GVR{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"create", "get", "list"}, Subresources: []string{"status", "log"}},
		GVR{Version: "v1", Resource: "nodes", Kind: "Node", Verbs: []string{"get"}},
		GVR{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Verbs: []string{"create", "delete", "get"}, Subresources: []string{"status"}},
		GVR{Group: "batch", Version: "v1beta1", Resource: "cronjobs", Namespaced: true},
	)
}

func TestFromList(t *testing.T) {
	got := FromList(discoveryList())
	want := wantFromList()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("FromList =\n%+v\nwant\n%+v", got, want)
	}
	if n := len(FromList(&apidiscoveryv2.APIGroupDiscoveryList{})); n != 0 {
		t.Errorf("an empty list gives %d GVRs", n)
	}
}

// discoveryServer answers /api and /apis; handle decides per request.
func discoveryServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) (*rest.Config, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var accepts []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts = append(accepts, r.URL.Path+" "+r.Header.Get("Accept"))
		mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}, Timeout: 5 * time.Second}
	return cfg, &accepts
}

func writeV2(t *testing.T, w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	if err := json.NewEncoder(w).Encode(discoveryList()); err != nil {
		t.Error(err)
	}
}

func TestFetch(t *testing.T) {
	legacy := `{"kind":"APIGroupList","apiVersion":"v1","groups":[]}`
	cases := []struct {
		name        string
		accept      string
		handle      func(t *testing.T, w http.ResponseWriter, r *http.Request)
		wantAccepts []string
		wantErr     string
	}{
		{
			name:   "nopeer v2 answered",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				writeV2(t, w, AggregatedV2NoPeer)
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer},
		},
		{
			name:   "nopeer refused with 406, plain v2 answered",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.Header.Get("Accept"), "profile=nopeer") {
					http.Error(w, "not acceptable", http.StatusNotAcceptable)
					return
				}
				writeV2(t, w, AggregatedV2)
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer, "/apis " + AggregatedV2},
		},
		{
			name:   "nopeer answered with legacy, plain v2 answered",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.Header.Get("Accept"), "profile=nopeer") {
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte(legacy))
					return
				}
				writeV2(t, w, AggregatedV2)
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer, "/apis " + AggregatedV2},
		},
		{
			// v2 with and without nopeer, then v2beta1 (what 1.27 to 1.29 serve).
			name:   "legacy APIGroupList only",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(legacy))
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer, "/apis " + AggregatedV2, "/apis " + AggregatedV2Beta1},
			wantErr:     "APIGroupDiscoveryList",
		},
		{
			name:   "plain v2 asked, legacy answered: v2beta1 is the only second try",
			accept: AggregatedV2,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(legacy))
			},
			wantAccepts: []string{"/apis " + AggregatedV2, "/apis " + AggregatedV2Beta1},
			wantErr:     "APIGroupDiscoveryList",
		},
		{
			name:   "server error is not retried",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				http.Error(w, "boom", http.StatusInternalServerError)
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer},
			wantErr:     "HTTP 500",
		},
		{
			name:   "broken v2 body",
			accept: AggregatedV2NoPeer,
			handle: func(t *testing.T, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", AggregatedV2NoPeer)
				w.Write([]byte(`{"kind":`))
			},
			wantAccepts: []string{"/apis " + AggregatedV2NoPeer},
			wantErr:     "decoding APIGroupDiscoveryList",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, accepts := discoveryServer(t, func(w http.ResponseWriter, r *http.Request) { tc.handle(t, w, r) })
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			list, err := Fetch(ctx, cfg, "/apis", tc.accept)
			if !reflect.DeepEqual(*accepts, tc.wantAccepts) {
				t.Errorf("requests (path and Accept) = %q, want %q", *accepts, tc.wantAccepts)
			}
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Fetch succeeded with %+v, want an error mentioning %q", list, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %q does not mention %q", err, tc.wantErr)
				}
				if list != nil {
					t.Errorf("Fetch returned a list with its error: %+v", list)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := FromList(list), wantFromList(); !reflect.DeepEqual(got, want) {
				t.Errorf("parsed =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestServedMergesAPIAndAPIs(t *testing.T) {
	cfg, accepts := discoveryServer(t, func(w http.ResponseWriter, r *http.Request) {
		list := discoveryList()
		switch r.URL.Path {
		case "/api":
			list.Items = list.Items[:1]
		case "/apis":
			list.Items = list.Items[1:]
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", AggregatedV2NoPeer)
		json.NewEncoder(w).Encode(list)
	})
	got, err := Served(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := wantFromList(); !reflect.DeepEqual(got, want) {
		t.Errorf("Served =\n%+v\nwant\n%+v", got, want)
	}
	if want := []string{"/api " + AggregatedV2NoPeer, "/apis " + AggregatedV2NoPeer}; !reflect.DeepEqual(*accepts, want) {
		t.Errorf("requests = %q, want %q", *accepts, want)
	}
}
