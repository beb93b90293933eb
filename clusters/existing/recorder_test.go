package existing

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// uids are what the fake answers each create with, by the path created at: a review and a
// token (never stored) get none; a token's answer gets one anyway, to show that a
// subresource's answer is never taken for its parent.
var uids = map[string]string{
	"/api/v1/namespaces":                                      "ns-uid",
	"/api/v1/namespaces/skewcheck-r/configmaps":               "cm-uid",
	"/apis/rbac.authorization.k8s.io/v1/clusterroles":         "cr-uid",
	"/api/v1/namespaces/skewcheck-r/serviceaccounts/sa/token": "sa-uid",
	"/apis/authentication.k8s.io/v1/tokenreviews":             "",
	"/apis/authentication.k8s.io/v1/selfsubjectreviews":       "",
}

// makeRecorded creates, through a recorded config of the fake, a namespace, a configmap in
// it, a TokenReview, a SelfSubjectReview and a token with client-go's typed clients (which
// speak protobuf), and a ClusterRole in JSON, as a test's Endpoint.Do does.
func makeRecorded(t *testing.T, api *fakeAPI, rec *Recorder) {
	t.Helper()
	ctx := context.Background()
	cfg := rec.Wrap(api.config())
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "skewcheck-r"}}, metav1.CreateOptions{})
	if err != nil || ns.UID != "ns-uid" {
		t.Fatalf("the caller's answer to the namespace's create: %v, %v (the recorder must leave the body whole)", ns, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("skewcheck-r").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "reader"}}}
	got, err := dyn.Resource(rbacv1.SchemeGroupVersion.WithResource("clusterroles")).Create(ctx, role, metav1.CreateOptions{})
	if err != nil || got.GetUID() != "cr-uid" {
		t.Fatalf("the caller's answer to the ClusterRole's create: %v, %v (the recorder must leave the body whole)", got, err)
	}
	if _, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("skewcheck-r").CreateToken(ctx, "sa", &authenticationv1.TokenRequest{}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// deletes answers every create as a server would, and every delete with what byPath says
// (200 when it says nothing).
func deletes(byPath map[string]int) func(fakeRequest) (int, any) {
	return func(r fakeRequest) (int, any) {
		if r.Method == http.MethodPost {
			return created(r, uids[r.Path])
		}
		switch code := byPath[r.Path]; code {
		case 0:
			return http.StatusOK, map[string]any{"kind": "Status", "status": "Success"}
		case http.StatusConflict:
			return status(code, "Conflict", "Precondition failed: UID in precondition: x, UID in object meta: y")
		case http.StatusNotFound:
			return status(code, "NotFound", "not found")
		default:
			return status(code, "InternalError", "etcd is down")
		}
	}
}

// A run records what the server answered its creates with, and removes exactly that:
// newest first, each by name with its UID as a precondition, in the background; the
// configmap goes with the namespace; reviews and tokens, which are never stored, are not
// recorded, nor a subresource's answer.
func TestRecordedObjectsRemovedByUID(t *testing.T) {
	api := newFakeAPI(t, deletes(nil))
	rec := &Recorder{}
	makeRecorded(t, api, rec)
	var made []string
	for _, m := range rec.Made() {
		made = append(made, m.String()+" "+string(m.UID))
	}
	want := []string{"namespaces/skewcheck-r ns-uid", "configmaps/cm -n skewcheck-r cm-uid", "clusterroles.rbac.authorization.k8s.io/reader cr-uid"}
	if strings.Join(made, "; ") != strings.Join(want, "; ") {
		t.Fatalf("recorded %q, want %q", made, want)
	}
	if posts := api.sent(http.MethodPost); !posts[0].protobuf || posts[2].protobuf {
		t.Errorf("the namespace's create went in protobuf: %t, the ClusterRole's in JSON: %t; the test must read both formats", posts[0].protobuf, !posts[2].protobuf)
	}
	if err := rec.Remove(context.Background(), api.config()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range api.sent(http.MethodDelete) {
		pre, _ := d.Body["preconditions"].(map[string]any)
		got = append(got, d.Path+" uid="+pre["uid"].(string)+" "+d.Body["propagationPolicy"].(string))
	}
	wantDeletes := []string{"/apis/rbac.authorization.k8s.io/v1/clusterroles/reader uid=cr-uid Background", "/api/v1/namespaces/skewcheck-r uid=ns-uid Background"}
	if strings.Join(got, "; ") != strings.Join(wantDeletes, "; ") {
		t.Errorf("deletes sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantDeletes, "\n"))
	}
}

// An object gone, or replaced by someone else's of the same name (the UID precondition
// fails with a Conflict), is not the run's any more: left, and no error. One the server
// would not delete is named in the error, with the command that removes what is left.
func TestRemoveLeavesWhatIsNotOurs(t *testing.T) {
	api := newFakeAPI(t, deletes(map[string]int{
		"/apis/rbac.authorization.k8s.io/v1/clusterroles/reader": http.StatusConflict,
		"/api/v1/namespaces/skewcheck-r":                         http.StatusNotFound,
	}))
	rec := &Recorder{}
	makeRecorded(t, api, rec)
	if err := rec.Remove(context.Background(), api.config()); err != nil {
		t.Errorf("an object replaced or gone is not an error: %v", err)
	}

	api = newFakeAPI(t, deletes(map[string]int{"/api/v1/namespaces/skewcheck-r": http.StatusInternalServerError}))
	fp := Footprint{Run: "r", Recorder: &Recorder{}}
	makeRecorded(t, api, fp.Recorder)
	err := fp.Remove(api.config())
	if err == nil {
		t.Fatal("a namespace the server would not delete is no error")
	}
	for _, want := range []string{"namespaces/skewcheck-r", "ns-uid", "etcd is down", "skewcheck cleanup --kubeconfig <kubeconfig> --run r"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "clusterroles") {
		t.Errorf("the error names an object that was deleted: %v", err)
	}
}

// Two runs started in the same second have IDs of their own, each the UTC time it started
// and a label value, and, with the prefixes the runs put before it, a namespace's name.
// (Twenty IDs of one second: the chance that two of 36^5 suffixes meet is some 3 in a
// million, so a repeat is a broken RunID, not bad luck.)
func TestRunIDsDoNotCollide(t *testing.T) {
	now := time.Date(2026, 1, 2, 16, 4, 5, 0, time.FixedZone("CET", 3600))
	shape := regexp.MustCompile(`^20260102-150405-[0-9a-z]{5}$`)
	seen := map[string]bool{}
	for range 20 {
		id := RunID(now)
		if !shape.MatchString(id) {
			t.Fatalf("RunID = %q, want 20260102-150405-xxxxx (the UTC time, then five of [0-9a-z])", id)
		}
		if seen[id] {
			t.Fatalf("RunID gave %q twice in the same second", id)
		}
		seen[id] = true
		for _, name := range []string{"skewcheck-" + id, "skewcheck-certify-" + id} {
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("namespace %q: %v", name, errs)
			}
		}
		if errs := validation.IsValidLabelValue(id); len(errs) > 0 {
			t.Errorf("label value %q: %v", id, errs)
		}
	}
	if fp := NewFootprint(now); !shape.MatchString(fp.Run) || fp.Recorder == nil {
		t.Errorf("NewFootprint = %+v, want a RunID and a recorder", fp)
	}
}

// roundTripperFunc is a function as an http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// WrapTarget records what a test makes through any identity of any endpoint, and keeps the
// wrapper a config already had; a config wrapped twice records an object once.
func TestWrapTargetRecordsEveryIdentity(t *testing.T) {
	var mu sync.Mutex
	n := 0
	api := newFakeAPI(t, func(r fakeRequest) (int, any) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return created(r, fmt.Sprintf("uid-%d", n))
	})
	own := 0
	user := api.config()
	user.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) { own++; return rt.RoundTrip(r) })
	}
	target := &framework.Target{Endpoints: []*framework.Endpoint{{Name: "a", Admin: api.config(), User: user, ServedFrom: api.config()}}}
	rec := &Recorder{}
	rec.WrapTarget(target)
	e := target.Endpoints[0]
	for _, cfg := range []*rest.Config{e.Admin, e.User, e.ServedFrom, rec.Wrap(e.Admin)} {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "skewcheck-"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if own != 1 {
		t.Errorf("the user config's own wrapper ran %d times, want once", own)
	}
	var uids []string
	for _, m := range rec.Made() {
		uids = append(uids, string(m.UID))
	}
	if want := "uid-1 uid-2 uid-3 uid-4"; strings.Join(uids, " ") != want {
		t.Errorf("recorded %v, want %s, each once", uids, want)
	}
}

// A server-side apply that finds no object creates it and is answered 201, as a POST is:
// recorded like one, the resource read off the object's path. An apply (or any patch)
// answered 200 changed an object that was there, and is not the run's.
func TestServerSideApplyCreateRecorded(t *testing.T) {
	api := newFakeAPI(t, func(r fakeRequest) (int, any) {
		if r.Method != http.MethodPatch {
			return status(http.StatusMethodNotAllowed, "MethodNotAllowed", "only PATCH here")
		}
		code, obj := created(r, "uid-"+r.Path[strings.LastIndex(r.Path, "/")+1:])
		if strings.HasSuffix(r.Path, "/there") {
			code = http.StatusOK // applied to an object that was there
		}
		return code, obj
	})
	rec := &Recorder{}
	dyn, err := dynamic.NewForConfig(rec.Wrap(api.config()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	apply := func(gvr schema.GroupVersionResource, ns, kind, name string) {
		t.Helper()
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": name}}}
		if _, err := dyn.Resource(gvr).Namespace(ns).Apply(ctx, name, o, metav1.ApplyOptions{FieldManager: "skewcheck"}); err != nil {
			t.Fatal(err)
		}
	}
	apply(rbacv1.SchemeGroupVersion.WithResource("clusterroles"), "", "ClusterRole", "applied")
	apply(corev1.SchemeGroupVersion.WithResource("configmaps"), "skewcheck-r", "ConfigMap", "applied-cm")
	apply(corev1.SchemeGroupVersion.WithResource("configmaps"), "skewcheck-r", "ConfigMap", "there")
	var made []string
	for _, m := range rec.Made() {
		made = append(made, m.String()+" "+string(m.UID))
	}
	want := "clusterroles.rbac.authorization.k8s.io/applied uid-applied; configmaps/applied-cm -n skewcheck-r uid-applied-cm"
	if got := strings.Join(made, "; "); got != want {
		t.Errorf("recorded %q, want %q", got, want)
	}
}

// An anonymous request (framework.AsAnonymous) goes through a config made from Admin
// without its credentials, and without its wrappers (rest.AnonymousClientConfig): what it
// creates, should a proxy let an anonymous create through (MVP-044 sends one), is the
// run's all the same, and recorded.
func TestWrapTargetRecordsAnonymousCreates(t *testing.T) {
	api := newFakeAPI(t, func(r fakeRequest) (int, any) { return created(r, "anonymous-uid") })
	target := &framework.Target{Endpoints: []*framework.Endpoint{{Name: "a", URL: api.srv.URL, Admin: api.config()}}}
	rec := &Recorder{}
	rec.WrapTarget(target)
	r := target.Endpoints[0].Do(context.Background(), framework.Request{Method: http.MethodPost, Path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		Body: []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"let-through"}}`), As: framework.AsAnonymous})
	if r.Status != http.StatusCreated {
		t.Fatalf("the anonymous create: %s", r)
	}
	if made := rec.Made(); len(made) != 1 || made[0].UID != "anonymous-uid" {
		t.Errorf("recorded %v, want the ClusterRole the anonymous create made", made)
	}
}
