package existing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// fakeRequest is one request the fake apiserver was sent.
type fakeRequest struct {
	Method, Path string
	// Object is the body of a built-in kind, decoded from JSON or protobuf (client-go's
	// typed clients send protobuf); Body is a JSON body as it came (a DeleteOptions).
	Object   runtime.Object
	Body     map[string]any
	protobuf bool
	// line is the request as one line: "METHOD path", its selectors and, of a DELETE, its
	// options (grace=, propagation=, uid=), as fakeAPI.Requests lists them.
	line string
}

// fakeAPI is an apiserver that keeps every request, so a test sees what a run sent a
// cluster, and answers it with raw, when set and it answers (returns true), else with
// answer.
type fakeAPI struct {
	srv    *httptest.Server
	answer func(r fakeRequest) (int, any)
	// raw writes the answer itself, for what answer cannot say (a log streamed as it is
	// written); it sees the request whole, its body included.
	raw      func(w http.ResponseWriter, r *http.Request) bool
	mu       sync.Mutex
	requests []fakeRequest
}

func newFakeAPI(t *testing.T, answer func(r fakeRequest) (int, any)) *fakeAPI {
	return startFakeAPI(t, &fakeAPI{answer: answer})
}

// newFakeAPIServer is a fakeAPI of canned answers, for what needs a rest.Config rather
// than a clientset (the Recorder's transport, log streams): raw answers first, and what it
// leaves a server would answer (asAServer). Its config asks for JSON, so that every
// request, a DELETE's options included, reads as its line.
func newFakeAPIServer(t *testing.T, raw func(w http.ResponseWriter, r *http.Request) bool) (*fakeAPI, *rest.Config) {
	f := startFakeAPI(t, &fakeAPI{answer: asAServer, raw: raw})
	cfg := f.config()
	cfg.ContentType = "application/json"
	return f, cfg
}

func startFakeAPI(t *testing.T, f *fakeAPI) *fakeAPI {
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	req := fakeRequest{Method: r.Method, Path: r.URL.Path, protobuf: r.Header.Get("Content-Type") == protobufType}
	if len(b) > 0 {
		if obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil); err == nil {
			obj.GetObjectKind().SetGroupVersionKind(*gvk)
			req.Object = obj
		}
		if !req.protobuf {
			json.Unmarshal(b, &req.Body)
		}
	}
	req.line = requestLine(r, req)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if f.raw != nil && f.raw(w, r) {
		return
	}
	code, body := f.answer(req)
	if obj, ok := body.(runtime.Object); ok && req.protobuf {
		w.Header().Set("Content-Type", protobufType)
		w.WriteHeader(code)
		protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, w)
		return
	}
	writeJSON(w, code, body)
}

// requestLine is r as Requests lists it.
func requestLine(r *http.Request, req fakeRequest) string {
	line := r.Method + " " + r.URL.Path
	for _, k := range []string{"labelSelector", "fieldSelector", "follow"} {
		if v := r.URL.Query().Get(k); v != "" {
			line += " " + k + "=" + v
		}
	}
	var opts metav1.DeleteOptions
	if b, err := json.Marshal(req.Body); r.Method == http.MethodDelete && req.Body != nil && err == nil && json.Unmarshal(b, &opts) == nil {
		if opts.GracePeriodSeconds != nil {
			line += fmt.Sprintf(" grace=%d", *opts.GracePeriodSeconds)
		}
		if opts.PropagationPolicy != nil {
			line += " propagation=" + string(*opts.PropagationPolicy)
		}
		if opts.Preconditions != nil && opts.Preconditions.UID != nil {
			line += " uid=" + string(*opts.Preconditions.UID)
		}
	}
	return line
}

func (f *fakeAPI) config() *rest.Config { return &rest.Config{Host: f.srv.URL, QPS: 1000, Burst: 1000} }

// sent are the requests of method, in order.
func (f *fakeAPI) sent(method string) []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []fakeRequest
	for _, r := range f.requests {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Requests are the lines of the requests so far that start with prefix, in order.
func (f *fakeAPI) Requests(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if strings.HasPrefix(r.line, prefix) {
			out = append(out, r.line)
		}
	}
	return out
}

// kubeconfig is a kubeconfig file whose current context reaches the fake.
func (f *fakeAPI) kubeconfig(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: fake, cluster: {server: "` + f.srv.URL + `"}}]
users: [{name: admin, user: {token: admin-token}}]
contexts: [{name: fake, context: {cluster: fake, user: admin}}]
current-context: fake
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// asAServer answers as a server would what a test leaves to it: a create (JSON) with the
// object it was sent, given a UID ("uid-RESOURCE-NAME") and the path's namespace; a delete
// with success; anything else NotFound.
func asAServer(r fakeRequest) (int, any) {
	switch r.Method {
	case http.MethodPost:
		md, ok := r.Body["metadata"].(map[string]any)
		if !ok {
			return status(http.StatusBadRequest, "BadRequest", "the fake reads only a JSON object with metadata")
		}
		s := strings.Split(r.Path, "/")
		md["uid"] = "uid-" + s[len(s)-1] + "-" + fmt.Sprint(md["name"])
		if len(s) > 5 && s[len(s)-3] == "namespaces" {
			md["namespace"] = s[len(s)-2] // .../namespaces/NS/RESOURCE
		}
		return http.StatusCreated, r.Body
	case http.MethodDelete:
		return http.StatusOK, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"}
	}
	return status(http.StatusNotFound, "NotFound", r.Path+" not found")
}

// status is a metav1.Status answer of code, reason and message.
func status(code int, reason, message string) (int, any) {
	return code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}
}

func writeJSON(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	_, body := status(code, reason, message)
	writeJSON(w, code, body)
}

// protobufType is the media type of Kubernetes protobuf.
const protobufType = "application/vnd.kubernetes.protobuf"

// created is the answer a real apiserver gives a create at path: the object sent, in the
// path's namespace, with uid set (none for a review or a token, which are not stored), in
// the format it was sent in.
func created(r fakeRequest, uid string) (int, any) {
	obj, err := meta.Accessor(r.Object)
	if err != nil {
		return status(http.StatusBadRequest, "BadRequest", "the fake cannot read the body of "+r.Path)
	}
	if _, rest, ok := strings.Cut(r.Path, "/namespaces/"); ok {
		ns, _, _ := strings.Cut(rest, "/")
		obj.SetNamespace(ns)
	}
	obj.SetUID(types.UID(uid))
	return http.StatusCreated, r.Object
}

// fastPolls makes the waits on a pod poll every few milliseconds for the test.
func fastPolls(t *testing.T) {
	was := podPoll
	podPoll = 5 * time.Millisecond
	t.Cleanup(func() { podPoll = was })
}
