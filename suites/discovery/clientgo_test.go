package discovery

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// legacyServer answers legacy discovery as an upstream entry with batch/v1 off does: its
// /apis lists batch/v1 (a peer's APIService, in the shared etcd), /apis/batch/v1 is 404,
// and apps/v1 lists deployments only.
func legacyServer(t *testing.T) *httptest.Server {
	docs := map[string]string{
		"/api":           `{"kind":"APIVersions","versions":["v1"]}`,
		"/api/v1":        `{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"pods","namespaced":true,"kind":"Pod","verbs":["get","list"]},{"name":"pods/status","namespaced":true,"kind":"Pod","verbs":["get"]}]}`,
		"/apis":          `{"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}}]}`,
		"/apis/apps/v1":  `{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[{"name":"deployments","namespaced":true,"kind":"Deployment","verbs":["get","list"]}]}`,
		"/apis/batch/v1": "",
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
			t.Errorf("the legacy client asked %s with Accept %q", r.URL.Path, r.Header.Get("Accept"))
		}
		body, ok := docs[r.URL.Path]
		if !ok || body == "" {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte("404 page not found"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func gvrs(keys ...string) disc.Set {
	s := disc.Set{}
	for _, k := range keys {
		parts := strings.Split(k, "/")
		g := disc.GVR{Group: parts[0], Version: parts[1], Resource: parts[2]}
		if g.Group == "core" {
			g.Group = ""
		}
		s[k] = g
	}
	return s
}

// The real client-go, against an upstream-like entry: batch/v1 fails with 404, and the
// peer's jobs and its apps/v1 replicasets are missing; all of it only the peer serves, so
// the deviation allows it. The same view at an entry that serves batch/v1 itself is not
// the deviation.
func TestClientGoViewOfAnIncompleteLegacyDiscovery(t *testing.T) {
	s := legacyServer(t)
	v := readThroughClientGo(&rest.Config{Host: s.URL}, true)
	if v.other != nil || len(v.failed) != 1 || v.failed["batch/v1"] == nil {
		t.Fatalf("failed %v, other error %v; want batch/v1 only", v.failed, v.other)
	}
	union := gvrs("core/v1/pods", "apps/v1/deployments", "apps/v1/replicasets", "batch/v1/jobs")
	entry := &framework.Endpoint{Name: "apiserver-1", Version: "v1.35.4", Served: gvrs("core/v1/pods", "apps/v1/deployments")}
	if got := v.failure(union); !strings.Contains(got, "unable to retrieve the complete list of server APIs: batch/v1: the server could not find the requested resource") ||
		!strings.Contains(got, "2 GVRs some server serves not listed: apps/v1/replicasets, batch/v1/jobs") {
		t.Errorf("failure %q", got)
	}
	obs := v.observe(entry, union, true)
	want := map[string]float64{"failed": 1, "failedPeerOnly": 1, "missing": 2, "missingPeerOnly": 2, "missingUnlisted": 0, "otherErrors": 0, "legacy": 1}
	for k, n := range want {
		if obs.Figures[k] != n {
			t.Errorf("%s = %g, want %g (%s)", k, obs.Figures[k], n, obs)
		}
	}
	if !legacyDiscoveryIncomplete.Allows(obs) {
		t.Errorf("not allowed: %s", obs)
	}
	own := &framework.Endpoint{Name: "apiserver-2", Version: "v1.36.3", Served: union}
	if o := v.observe(own, union, true); legacyDiscoveryIncomplete.Allows(o) {
		t.Errorf("allowed at an entry that serves everything itself: %s", o)
	}
	// A group-version the entry serves but its /apis does not list (its APIService pruned
	// by the last server to start) is allowed; a GVR missing from a listed one is not.
	unlisted := gvrs("core/v1/pods", "apps/v1/deployments", "autoscaling/v2/horizontalpodautoscalers")
	at := &framework.Endpoint{Name: "apiserver-1", Version: "v1.35.4", Served: unlisted}
	v.failed = map[string]error{}
	if o := v.observe(at, unlisted, true); o.Figures["missingUnlisted"] != 1 || !legacyDiscoveryIncomplete.Allows(o) {
		t.Errorf("unlisted group-version of the entry's own: %s", o)
	}
	ownMissing := gvrs("core/v1/pods", "apps/v1/deployments", "apps/v1/statefulsets")
	at.Served = ownMissing
	if o := v.observe(at, ownMissing, true); legacyDiscoveryIncomplete.Allows(o) {
		t.Errorf("a GVR of the entry's own missing from a group-version it lists is allowed: %s", o)
	}
	if got := readThroughClientGo(&rest.Config{Host: s.URL}, true).failure(gvrs("core/v1/pods")); !strings.Contains(got, "batch/v1") {
		t.Errorf("a failed group-version must fail even when every wanted GVR is listed: %q", got)
	}
}

func TestLegacyDocumentsLocalAllowsOnlyPeerOnlyGaps(t *testing.T) {
	obs := func(failed, failedPeerOnly, missing, missingPeerOnly, other, legacy float64) framework.Observation {
		return framework.Observation{At: &framework.Endpoint{Name: "apiserver-1", Version: "v1.35.4"}, Figures: map[string]float64{
			"failed": failed, "failedPeerOnly": failedPeerOnly, "missing": missing, "missingPeerOnly": missingPeerOnly, "missingUnlisted": 1, "otherErrors": other, "legacy": legacy}}
	}
	cases := []struct {
		name string
		obs  framework.Observation
		want bool
	}{
		// obs sets one missing GVR of the entry's own in a group-version its /apis leaves out.
		{"a peer's group-version 404, its GVRs and an unlisted one of the entry's missing", obs(1, 1, 4, 3, 0, 1), true},
		{"only a peer's resource missing from a shared group-version", obs(0, 0, 3, 2, 0, 1), true},
		{"aggregated discovery", obs(1, 1, 4, 3, 0, 0), false},
		{"a failed group-version the entry serves, or not a 404", obs(2, 1, 4, 3, 0, 1), false},
		{"a GVR of the entry's own missing from a listed group-version", obs(1, 1, 4, 2, 0, 1), false},
		{"another error", obs(1, 1, 4, 3, 1, 1), false},
		{"nothing wrong", obs(0, 0, 0, 0, 0, 1), false},
		{"no figures", framework.Observation{}, false},
	}
	for _, tc := range cases {
		if got := legacyDiscoveryIncomplete.Allows(tc.obs); got != tc.want {
			t.Errorf("%s: allowed %v, want %v", tc.name, got, tc.want)
		}
	}
}
