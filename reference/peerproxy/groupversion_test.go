package peerproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGroupVersionPath(t *testing.T) {
	for path, want := range map[string]string{
		"/apis/batch/v1": "batch v1", "/apis/batch/v1/": "batch v1",
		"/apis": "", "/apis/batch": "", "/apis/batch/v1/jobs": "", "/api/v1": "", "/apis//v1": "", "/apisx/batch/v1": "",
	} {
		g, v, ok := groupVersionPath(path)
		got := ""
		if ok {
			got = g + " " + v
		}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}

// jsonBackend is a stand-in apiserver answering every request with body, recording the
// Accept and Accept-Encoding it was asked with.
func jsonBackend(t *testing.T, body any, seen *http.Header) *httptest.Server {
	t.Helper()
	b, _ := json.Marshal(body)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*seen = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func getWith(t *testing.T, p *Proxy, path string, header http.Header) (int, []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for k, vs := range header {
		r.Header[k] = vs
	}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, b
}

// A group-version both serve, where the peer has a resource more (a newer server adding a
// resource to a group-version): the local document with the peer's resource and its
// subresource added, the local resources untouched.
func TestLegacyGroupVersionMergesPeerResources(t *testing.T) {
	var seen http.Header
	local := jsonBackend(t, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: "admissionregistration.k8s.io/v1",
		APIResources: []metav1.APIResource{{Name: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy", Verbs: metav1.Verbs{"get"}}}}, &seen)
	p := testProxy(t, local.URL, "http://peer.invalid")
	mutating := apidiscoveryv2.APIResourceDiscovery{Resource: "mutatingadmissionpolicies", SingularResource: "mutatingadmissionpolicy",
		Scope: apidiscoveryv2.ScopeCluster, Verbs: []string{"get", "list"}, ShortNames: []string{"map"},
		ResponseKind: &metav1.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"},
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", Verbs: []string{"get", "patch"},
			ResponseKind: &metav1.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy"}}}}
	validating := res("validatingadmissionpolicies", "get")
	p.reg.local.served = set("core/v1/pods", "admissionregistration.k8s.io/v1/validatingadmissionpolicies")
	p.reg.local.apis = list(group("admissionregistration.k8s.io", ver("v1", validating)))
	peer := p.reg.peers["peer"]
	peer.apis = list(group("admissionregistration.k8s.io", ver("v1", validating, mutating)))
	p.reg.peers["peer"] = peer

	code, body := getWith(t, p, "/apis/admissionregistration.k8s.io/v1", http.Header{"Authorization": {"Bearer good"},
		"Accept": {"application/vnd.kubernetes.protobuf"}, "Accept-Encoding": {"gzip"}})
	if code != http.StatusOK {
		t.Fatalf("answer %d %s", code, body)
	}
	if seen.Get("Accept") != "application/json" || seen.Get("X-Remote-User") != "bob" {
		t.Errorf("the local apiserver was asked with Accept %q as %q; want application/json as bob", seen.Get("Accept"), seen.Get("X-Remote-User"))
	}
	var got metav1.APIResourceList
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	want := []metav1.APIResource{
		{Name: "validatingadmissionpolicies", Kind: "ValidatingAdmissionPolicy", Verbs: metav1.Verbs{"get"}},
		{Name: "mutatingadmissionpolicies", SingularName: "mutatingadmissionpolicy", Kind: "MutatingAdmissionPolicy",
			Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"map"}},
		{Name: "mutatingadmissionpolicies/status", Kind: "MutatingAdmissionPolicy", Verbs: metav1.Verbs{"get", "patch"}},
	}
	if !reflect.DeepEqual(got.APIResources, want) || got.GroupVersion != "admissionregistration.k8s.io/v1" {
		t.Errorf("merged document\n%+v\nwant\n%+v", got, want)
	}
	// The flawed variant leaves the document to the local apiserver.
	p.cfg.Flaw = FlawLocalLegacyDiscovery
	if _, body := getWith(t, p, "/apis/admissionregistration.k8s.io/v1", http.Header{"Authorization": {"Bearer good"}}); json.Unmarshal(body, &got) != nil || len(got.APIResources) != 1 {
		t.Errorf("with %s: %s, want the local document", p.cfg.Flaw, body)
	}
}

// Legacy /apis lists the group-versions peers serve, and the local apiserver's own its
// list lacks (the local view has policy/v1, the list not); a marked /apis is the local
// apiserver's.
func TestLegacyGroupListAddsPeerGroupVersions(t *testing.T) {
	var seen http.Header
	apps := metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}
	local := jsonBackend(t, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups: []metav1.APIGroup{{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{apps}, PreferredVersion: apps}}}, &seen)
	p := testProxy(t, local.URL, "http://peer.invalid")
	p.reg.local.apis = list(group("apps", ver("v1", res("deployments"))), group("policy", ver("v1", res("poddisruptionbudgets"))))
	peer := p.reg.peers["peer"]
	peer.served = set("core/v1/pods", "apps/v1/deployments", "apps/v2/deployments", "batch/v1/jobs")
	peer.apis = list(group("apps", ver("v2", res("deployments")), ver("v1", res("deployments"))), group("batch", ver("v1", res("jobs"))))
	p.reg.peers["peer"] = peer

	_, body := getWith(t, p, "/apis", http.Header{"Authorization": {"Bearer good"}, "Accept": {"application/json"}})
	var got metav1.APIGroupList
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	batch := metav1.GroupVersionForDiscovery{GroupVersion: "batch/v1", Version: "v1"}
	policy := metav1.GroupVersionForDiscovery{GroupVersion: "policy/v1", Version: "v1"}
	want := []metav1.APIGroup{
		{Name: "apps", Versions: []metav1.GroupVersionForDiscovery{apps, {GroupVersion: "apps/v2", Version: "v2"}}, PreferredVersion: apps},
		{Name: "policy", Versions: []metav1.GroupVersionForDiscovery{policy}, PreferredVersion: policy},
		{Name: "batch", Versions: []metav1.GroupVersionForDiscovery{batch}, PreferredVersion: batch},
	}
	if !reflect.DeepEqual(got.Groups, want) {
		t.Errorf("legacy /apis\n%+v\nwant\n%+v", got.Groups, want)
	}
	_, body = getWith(t, p, "/apis", http.Header{"Authorization": {"Bearer good"}, "X-Kubernetes-Peer-Proxied": {"true"}})
	if json.Unmarshal(body, &got) != nil || len(got.Groups) != 1 {
		t.Errorf("a marked /apis: %s, want the local list", body)
	}
}
