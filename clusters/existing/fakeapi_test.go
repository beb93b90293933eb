package existing

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
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
}

// fakeAPI is an apiserver that answers with answer and keeps every request, so a test
// sees what a run sent a cluster.
type fakeAPI struct {
	srv      *httptest.Server
	answer   func(r fakeRequest) (int, any)
	mu       sync.Mutex
	requests []fakeRequest
}

func newFakeAPI(t *testing.T, answer func(r fakeRequest) (int, any)) *fakeAPI {
	f := &fakeAPI{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := fakeRequest{Method: r.Method, Path: r.URL.Path, protobuf: r.Header.Get("Content-Type") == protobufType}
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			if obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil); err == nil {
				obj.GetObjectKind().SetGroupVersionKind(*gvk)
				req.Object = obj
			}
			if !req.protobuf {
				json.Unmarshal(b, &req.Body)
			}
		}
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.mu.Unlock()
		code, body := f.answer(req)
		if obj, ok := body.(runtime.Object); ok && req.protobuf {
			w.Header().Set("Content-Type", protobufType)
			w.WriteHeader(code)
			protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(f.srv.Close)
	return f
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

// status is a metav1.Status answer of code, reason and message.
func status(code int, reason, message string) (int, any) {
	return code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code, "reason": reason, "message": message}
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
