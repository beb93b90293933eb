package existing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// fakeAPIServer is an apiserver of canned answers, for what needs a rest.Config rather than
// a clientset (the Recorder's transport, log streams): it writes down each request as
// "METHOD path" with its selectors and delete options, and answers with answer, or, when
// answer does not, a POST with the object it was sent given a UID (201, "uid-RESOURCE-NAME"),
// a DELETE with success, and anything else with NotFound. Its clients ask for JSON, so that
// their requests read as it.
type fakeAPIServer struct {
	mu       sync.Mutex
	requests []string
	answer   func(w http.ResponseWriter, r *http.Request) bool
}

func newFakeAPIServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request) bool) (*fakeAPIServer, *rest.Config) {
	f := &fakeAPIServer{answer: answer}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, &rest.Config{Host: srv.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}}
}

// Requests are the requests so far whose line starts with prefix.
func (f *fakeAPIServer) Requests(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		if strings.HasPrefix(r, prefix) {
			out = append(out, r)
		}
	}
	return out
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	line := r.Method + " " + r.URL.Path
	for _, k := range []string{"labelSelector", "fieldSelector", "follow"} {
		if v := r.URL.Query().Get(k); v != "" {
			line += " " + k + "=" + v
		}
	}
	var opts metav1.DeleteOptions
	if r.Method == http.MethodDelete && json.Unmarshal(body, &opts) == nil {
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
	f.mu.Lock()
	f.requests = append(f.requests, line)
	f.mu.Unlock()
	if f.answer != nil && f.answer(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
			return
		}
		md, _ := obj["metadata"].(map[string]any)
		s := strings.Split(r.URL.Path, "/")
		md["uid"] = "uid-" + s[len(s)-1] + "-" + fmt.Sprint(md["name"])
		if len(s) > 5 && s[len(s)-3] == "namespaces" {
			md["namespace"] = s[len(s)-2] // .../namespaces/NS/RESOURCE
		}
		writeJSON(w, http.StatusCreated, obj)
	case http.MethodDelete:
		writeJSON(w, http.StatusOK, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Success"})
	default:
		writeStatus(w, http.StatusNotFound, "NotFound", r.URL.Path+" not found")
	}
}

func writeJSON(w http.ResponseWriter, code int, obj any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(obj)
}

func writeStatus(w http.ResponseWriter, code int, reason, message string) {
	writeJSON(w, code, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code, "message": message})
}

// fastPolls makes the waits on a pod poll every few milliseconds for the test.
func fastPolls(t *testing.T) {
	was := podPoll
	podPoll = 5 * time.Millisecond
	t.Cleanup(func() { podPoll = was })
}
