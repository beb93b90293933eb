package existing

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/framework"
)

// labelled is an item of a list the dynamic client reads.
func labelled(name, run string) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": name, "uid": "uid-" + name, "labels": map[string]any{framework.RunLabel: run},
		"creationTimestamp": "2026-01-02T03:04:05Z"}}
}

// servesDiscovery answers the legacy discovery of a cluster serving the core group's
// namespaces and configmaps, and storage.k8s.io/v1's volumeattributesclasses (cluster-scoped,
// of which skewcheck has a fixture) and csidrivers (cluster-scoped, with none): false for any
// other request.
func servesDiscovery(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	verbs := []string{"create", "delete", "get", "list"}
	switch r.URL.Path {
	case "/api":
		writeJSON(w, http.StatusOK, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}})
	case "/api/v1":
		writeJSON(w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "v1",
			APIResources: []metav1.APIResource{{Name: "namespaces", Kind: "Namespace", Verbs: verbs}, {Name: "configmaps", Namespaced: true, Kind: "ConfigMap", Verbs: verbs}}})
	case "/apis":
		gv := metav1.GroupVersionForDiscovery{GroupVersion: "storage.k8s.io/v1", Version: "v1"}
		writeJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups: []metav1.APIGroup{{Name: "storage.k8s.io", Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}}})
	case "/apis/storage.k8s.io/v1":
		writeJSON(w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "storage.k8s.io/v1",
			APIResources: []metav1.APIResource{{Name: "volumeattributesclasses", Kind: "VolumeAttributesClass", Verbs: verbs},
				{Name: "csidrivers", Kind: "CSIDriver", Verbs: verbs}}})
	default:
		return false
	}
	return true
}

// The sweep looks, besides the kinds every run labels, in the cluster-scoped kinds the
// cluster serves of which a test makes objects (the skewed resources): a
// VolumeAttributesClass the run inside made and could not remove, killed, is deleted by
// its UID; another run's is left, and so is a kind no test makes.
func TestCertifySweepsTheSkewedKindsLeft(t *testing.T) {
	fastPolls(t)
	c := &Certify{Footprint: Footprint{Run: "certify-20260102-030405-abcde", Recorder: &Recorder{}}, Image: "skewcheck:test"}
	inner := c.InnerRun()
	var mu sync.Mutex
	f, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case servesDiscovery(w, r):
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/"+c.certifyName()+"/pods":
			writeJSON(w, http.StatusOK, corev1.PodList{})
		case r.Method == http.MethodGet && r.URL.Query().Get("labelSelector") == framework.RunLabel:
			items := map[string][]any{
				"/apis/storage.k8s.io/v1/volumeattributesclasses": {labelled("skewcheck-owner-1", inner), labelled("theirs", "20260101-000000-zzzzz")},
				"/apis/storage.k8s.io/v1/csidrivers":              {labelled("no-fixture", inner)},
			}[r.URL.Path]
			if items == nil {
				items = []any{}
			}
			writeJSON(w, http.StatusOK, map[string]any{"kind": "List", "apiVersion": "v1", "items": items})
		default:
			return false
		}
		return true
	})
	if err := c.Make(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(admin, io.Discard); err != nil {
		t.Fatal(err)
	}
	swept := "DELETE /apis/storage.k8s.io/v1/volumeattributesclasses/skewcheck-owner-1 propagation=Background uid=uid-skewcheck-owner-1"
	got := f.Requests("DELETE /apis/storage.k8s.io/")
	if !slices.Equal(got, []string{swept}) {
		t.Errorf("deletes of storage.k8s.io: %v, want only the run inside's VolumeAttributesClass:\n%s", got, swept)
	}
	if slices.Contains(f.Requests("GET /apis/storage.k8s.io/v1/csidrivers"), "GET /apis/storage.k8s.io/v1/csidrivers labelSelector="+framework.RunLabel) {
		t.Errorf("the sweep listed csidrivers, of which no test makes one")
	}
}

// Remove stops the pod first and waits for it to end (its clean-up needs the binding),
// sweeps what the run inside left by exactly its label, and only then deletes certify's
// own objects by the UIDs Make got: binding, role, namespace.
func TestCertifyRemoveOrder(t *testing.T) {
	fastPolls(t)
	c := &Certify{Footprint: Footprint{Run: "certify-20260102-030405-abcde", Recorder: &Recorder{}}, Image: "skewcheck:test"}
	name, inner := c.certifyName(), c.InnerRun()
	var mu sync.Mutex
	podLists, deleted := 0, false
	f, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case servesDiscovery(w, r):
		case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/"+name+"/pods":
			podLists++
			p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-1", Namespace: name},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "skewcheck",
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
			if deleted {
				p.DeletionTimestamp = ptr(metav1.Now())
			}
			if podLists >= 3 { // its clean-up took two polls
				p.Status.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 130}}
			}
			writeJSON(w, http.StatusOK, corev1.PodList{Items: []corev1.Pod{p}})
		case r.Method == http.MethodDelete && strings.HasSuffix(r.URL.Path, "/pods/pod-1"):
			deleted = true
			return false
		case r.Method == http.MethodGet && r.URL.Query().Get("labelSelector") == framework.RunLabel:
			// What a search by the label finds: the run inside's, certify's own, another run's.
			items := map[string][]any{
				"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings":  {labelled("inner-binding", inner), labelled(name, c.Run)},
				"/apis/rbac.authorization.k8s.io/v1/clusterroles":         {labelled("inner-role", inner), labelled(name, c.Run), labelled("other-role", "20260101-000000-zzzzz")},
				"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": {labelled("others.example.com", "20260101-000000-zzzzz")},
				"/api/v1/namespaces": {labelled("skewcheck-"+inner, inner), labelled(name, c.Run)},
			}[r.URL.Path]
			if items == nil {
				return false // apiservices: not served
			}
			writeJSON(w, http.StatusOK, map[string]any{"kind": "List", "apiVersion": "v1", "items": items})
		default:
			return false
		}
		return true
	})
	if err := c.Make(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(admin, io.Discard); err != nil {
		t.Fatal(err)
	}
	rbac := "/apis/rbac.authorization.k8s.io/v1/"
	want := []string{
		"DELETE /apis/batch/v1/namespaces/" + name + "/jobs/" + name + " propagation=Background",
		"DELETE /api/v1/namespaces/" + name + "/pods/pod-1 grace=90",
		// the sweep, once the pod has ended
		"DELETE " + rbac + "clusterrolebindings/inner-binding propagation=Background uid=uid-inner-binding",
		"DELETE " + rbac + "clusterroles/inner-role propagation=Background uid=uid-inner-role",
		"DELETE /api/v1/namespaces/skewcheck-" + inner + " propagation=Background uid=uid-skewcheck-" + inner,
		// certify's own, as Make made them
		"DELETE " + rbac + "clusterrolebindings/" + name + " propagation=Background uid=uid-clusterrolebindings-" + name,
		"DELETE " + rbac + "clusterroles/" + name + " propagation=Background uid=uid-clusterroles-" + name,
		"DELETE /api/v1/namespaces/" + name + " propagation=Background uid=uid-namespaces-" + name,
	}
	if got := f.Requests("DELETE"); !slices.Equal(got, want) {
		t.Errorf("deletes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The sweep came after the poll that saw the pod's container end, not before.
	all := f.Requests("")
	lastPoll := -1
	for i, r := range all {
		if strings.HasPrefix(r, "GET /api/v1/namespaces/"+name+"/pods ") {
			lastPoll = i
		}
	}
	if sweep := slices.Index(all, want[2]); podLists < 3 || sweep < lastPoll {
		t.Errorf("the sweep (request %d) came before the pod ended (%d polls, the last request %d):\n%s", sweep, podLists, lastPoll, strings.Join(all, "\n"))
	}
}

// A Make refused at its namespace (AlreadyExists: someone else's) made nothing, and
// Remove deletes nothing.
func TestCertifyRemoveAfterNamespaceExists(t *testing.T) {
	fastPolls(t)
	c := &Certify{Footprint: Footprint{Run: "certify-20260102-030405-abcde", Recorder: &Recorder{}}, Image: "skewcheck:test"}
	f, admin := newFakeAPIServer(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && r.URL.Path == "/api/v1/namespaces" {
			writeStatus(w, http.StatusConflict, "AlreadyExists", `namespaces "`+c.Namespace()+`" already exists`)
			return true
		}
		return false
	})
	err := c.Make(context.Background(), admin)
	if err == nil || !strings.Contains(err.Error(), "already there") {
		t.Fatalf("Make: %v, want the namespace already there", err)
	}
	before := len(f.Requests(""))
	if err := c.Remove(admin, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := f.Requests(""); len(got) != before {
		t.Errorf("Remove sent %v, want nothing", got[before:])
	}
}
