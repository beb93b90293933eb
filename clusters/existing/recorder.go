package existing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// A run on a cluster it does not own removes what it made and nothing else. A name or a
// label says what a run meant to make, not what it made: a create answered AlreadyExists
// names an object someone else made, and a label can be copied. The server's answer to a
// create is the proof: the object's UID, which no other object ever has. So every request
// of the run goes through a transport that writes down each object the server answered a
// create with, and removal deletes each by name only while it still has that UID.

// Made is one object the server answered a create with.
type Made struct {
	GVR schema.GroupVersionResource
	// Namespace is "" for a cluster-scoped object.
	Namespace, Name string
	UID             types.UID
}

// String is the object as kubectl names it: kubectl delete <String>.
func (m Made) String() string {
	s := m.GVR.Resource
	if m.GVR.Group != "" {
		s += "." + m.GVR.Group
	}
	s += "/" + m.Name
	if m.Namespace != "" {
		s += " -n " + m.Namespace
	}
	return s
}

// namespaces is the resource a namespace is made as.
var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// maxRecordedBody bounds what the recorder buffers of one answer: etcd stores no request
// over 1.5 MiB by default, so no stored object's answer is bigger. A bigger one is passed on
// whole, and counted as missed.
const maxRecordedBody = 2 << 20

// Recorder writes down every object the server answered a create with, through every
// config it wrapped, in creation order. Its zero value is ready; it is safe for concurrent
// use, as the tests' requests are.
type Recorder struct {
	mu   sync.Mutex
	made []Made
	// seen keeps an object recorded once when a config is wrapped twice.
	seen map[types.UID]bool
	// missed counts answers to creates that could not be read (over maxRecordedBody, in a
	// format other than JSON and protobuf, cut short): what they made, if anything, is not
	// known, so not removed.
	missed int
}

// Wrap is a copy of cfg whose requests the recorder sees: each answer with status 201 (to a
// POST, a PUT or a server-side apply) whose body (JSON or protobuf) has metadata.uid is recorded, the resource read off the
// request's path. cfg's own WrapTransport, if any, still runs, beneath the recorder. A
// config derived with rest.AnonymousClientConfig drops the recording, as it drops every
// wrapper: wrap the derived config again (WrapTarget has Endpoint.Do do so).
func (r *Recorder) Wrap(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(r.wrapper(cfg.Host))
	return c
}

// wrapper is the recorder's transport for a config of host.
func (r *Recorder) wrapper(host string) func(http.RoundTripper) http.RoundTripper {
	prefix := hostPath(host)
	return func(rt http.RoundTripper) http.RoundTripper {
		return &recording{next: rt, r: r, prefix: prefix}
	}
}

// WrapTarget wraps every client config of t's endpoints (Admin, User, ServedFrom) and
// their anonymous requests (Endpoint.WrapAnonymous), so every object a test makes through
// an endpoint (Endpoint.Do, whatever the identity, or client-go) is recorded.
func (r *Recorder) WrapTarget(t *framework.Target) {
	for _, e := range t.Endpoints {
		for _, cfg := range []**rest.Config{&e.Admin, &e.User, &e.ServedFrom} {
			if *cfg != nil {
				*cfg = r.Wrap(*cfg)
			}
		}
		if e.Admin != nil {
			e.WrapAnonymous = r.wrapper(e.Admin.Host)
		}
	}
}

// Made is every object recorded, in creation order.
func (r *Recorder) Made() []Made {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.made)
}

// Remove deletes what was recorded, newest first, each only while it has the UID its
// create was answered with, in the background (its dependents after it). An object gone
// (NotFound) or replaced by someone else's of the same name (the UID precondition's
// Conflict) is not the run's any more and is left. An object in a namespace the recorder
// made goes with that namespace. The error names each object left and the answers that
// could not be read.
func (r *Recorder) Remove(ctx context.Context, admin *rest.Config) error {
	made := r.Made()
	r.mu.Lock()
	missed := r.missed
	r.mu.Unlock()
	if len(made) == 0 && missed == 0 {
		return nil
	}
	dyn, err := dynamic.NewForConfig(admin)
	if err != nil {
		return fmt.Errorf("a client for %s to remove what the run made: %w", admin.Host, err)
	}
	ours := map[string]bool{}
	for _, m := range made {
		if m.GVR == namespaces {
			ours[m.Name] = true
		}
	}
	var errs []error
	for _, m := range slices.Backward(made) {
		if m.Namespace != "" && ours[m.Namespace] {
			continue
		}
		if err := deleteOwned(ctx, dyn, m); err != nil {
			errs = append(errs, err)
		}
	}
	if missed > 0 {
		errs = append(errs, fmt.Errorf("%d answers to the run's creates could not be read (over %d bytes, neither JSON nor protobuf, or cut short), so what they made is not known and was not removed", missed, maxRecordedBody))
	}
	return errors.Join(errs...)
}

// deleteOwned deletes m while it has m's UID: nil when it is deleted, gone, or another
// object now (the precondition's Conflict).
func deleteOwned(ctx context.Context, dyn dynamic.Interface, m Made) error {
	uid, bg := m.UID, metav1.DeletePropagationBackground
	err := dyn.Resource(m.GVR).Namespace(m.Namespace).Delete(ctx, m.Name,
		metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &bg})
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return fmt.Errorf("deleting %s (uid %s): %w", m, m.UID, err)
}

func (r *Recorder) add(m Made) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[m.UID] {
		return
	}
	if r.seen == nil {
		r.seen = map[types.UID]bool{}
	}
	r.seen[m.UID] = true
	r.made = append(r.made, m)
}

func (r *Recorder) miss() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.missed++
}

// hostPath is the path of a config's Host (a proxy that serves the API under a prefix),
// which comes before /api or /apis in every request.
func hostPath(host string) string {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// recording is the recorder's transport.
type recording struct {
	next   http.RoundTripper
	r      *Recorder
	prefix string
}

// WrappedRoundTripper lets client-go reach the transport beneath (utilnet.RoundTripperWrapper).
func (t *recording) WrappedRoundTripper() http.RoundTripper { return t.next }

func (t *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	// A create is a POST, a PUT to an object that was not there (leases, endpoints), or a
	// server-side apply (PATCH) that found none: each answered 201. A dry run stores nothing.
	if err != nil || resp.StatusCode != http.StatusCreated || !slices.Contains([]string{http.MethodPost, http.MethodPut, http.MethodPatch}, req.Method) ||
		req.URL.Query().Has("dryRun") {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxRecordedBody+1))
	// The caller reads the answer whole, as if nothing had read it.
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	if rerr != nil || len(body) > maxRecordedBody {
		t.r.miss()
		return resp, nil
	}
	md, ok := metadataOf(resp.Header.Get("Content-Type"), body)
	if !ok {
		t.r.miss()
		return resp, nil
	}
	if md.UID == "" {
		return resp, nil // a review or a token: answered, never stored
	}
	if gvr, ok := createdResource(strings.TrimPrefix(req.URL.Path, t.prefix), req.Method, md.Namespace, md.Name); ok {
		t.r.add(Made{GVR: gvr, Namespace: md.Namespace, Name: md.Name, UID: md.UID})
	}
	return resp, nil
}

// protobufPrefix begins every Kubernetes protobuf body (k8s.io/apimachinery's protobuf
// serializer): a runtime.Unknown follows, whose Raw is the object.
var protobufPrefix = []byte("k8s\x00")

// metadataOf is the object metadata of an answer's body, in JSON or, as client-go's typed
// clients ask for built-in kinds, protobuf. Every object has its metadata as field 1 (in
// protobuf) or "metadata" (in JSON), which PartialObjectMetadata reads, skipping the rest.
func metadataOf(contentType string, body []byte) (metav1.ObjectMeta, bool) {
	var obj metav1.PartialObjectMetadata
	var err error
	switch media, _, _ := mime.ParseMediaType(contentType); media {
	case "application/json":
		err = json.Unmarshal(body, &obj)
	case "application/vnd.kubernetes.protobuf":
		var u runtime.Unknown
		if !bytes.HasPrefix(body, protobufPrefix) {
			return obj.ObjectMeta, false
		}
		if err = u.Unmarshal(body[len(protobufPrefix):]); err == nil {
			err = obj.Unmarshal(u.Raw)
		}
	default:
		return obj.ObjectMeta, false
	}
	return obj.ObjectMeta, err == nil
}

// createdResource is the resource a create at path made an object of: the collection a
// POST went to, or the object a PUT or an apply (PATCH) created, in namespace (read off the answer, since a
// path alone does not say whether /api/v1/namespaces/x/y is a namespace's subresource or
// a collection in it). A subresource's path is no object's of its own (pods/binding,
// serviceaccounts/token): deleting by its parent's name would delete the parent, so it is
// not recorded.
func createdResource(path, method, namespace, name string) (schema.GroupVersionResource, bool) {
	s := strings.Split(strings.Trim(path, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case len(s) >= 3 && s[0] == "api":
		gv, s = schema.GroupVersion{Version: s[1]}, s[2:]
	case len(s) >= 4 && s[0] == "apis":
		gv, s = schema.GroupVersion{Group: s[1], Version: s[2]}, s[3:]
	default:
		return schema.GroupVersionResource{}, false
	}
	if namespace != "" {
		if len(s) < 3 || s[0] != "namespaces" || s[1] != namespace {
			return schema.GroupVersionResource{}, false
		}
		s = s[2:]
	}
	switch {
	case len(s) == 1 && method == http.MethodPost, len(s) == 2 && method != http.MethodPost && s[1] == name:
		return gv.WithResource(s[0]), true
	}
	return schema.GroupVersionResource{}, false
}
