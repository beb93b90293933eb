package aggregated

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// store keeps the resource's objects in memory, by namespace and name, with a resource
// version counting every write: what the suites' loads do (create, list, get, delete,
// delete by label) and nothing else.
type store struct {
	g       discovery.GVR
	mu      sync.Mutex
	objects map[string]map[string]any // "namespace/name" -> object
	version int64
}

func newStore(g discovery.GVR) *store {
	return &store{g: g, objects: map[string]map[string]any{}}
}

// maxBody bounds what a create may send: a test's objects are a few hundred bytes.
const maxBody = 1 << 20

func (st *store) routes(mux *http.ServeMux) {
	base := "/apis/" + st.g.GroupVersion()
	collection := base + "/namespaces/{namespace}/" + st.g.Resource
	mux.HandleFunc("GET "+base+"/"+st.g.Resource, func(w http.ResponseWriter, r *http.Request) { st.list(w, r, "") })
	mux.HandleFunc("GET "+collection, func(w http.ResponseWriter, r *http.Request) { st.list(w, r, r.PathValue("namespace")) })
	mux.HandleFunc("POST "+collection, st.create)
	mux.HandleFunc("DELETE "+collection, st.deleteCollection)
	mux.HandleFunc("GET "+collection+"/{name}", st.get)
	mux.HandleFunc("DELETE "+collection+"/{name}", st.delete)
}

func (st *store) list(w http.ResponseWriter, r *http.Request, namespace string) {
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	st.mu.Lock()
	items := st.matching(namespace, sel)
	rv := st.version
	st.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"apiVersion": st.g.GroupVersion(), "kind": st.g.Kind + "List",
		"metadata": map[string]any{"resourceVersion": strconv.FormatInt(rv, 10)}, "items": items,
	})
}

// matching is every object in namespace ("" for all) whose labels sel selects, by key.
// The caller holds mu.
func (st *store) matching(namespace string, sel labels.Selector) []map[string]any {
	var keys []string
	for k, obj := range st.objects {
		if (namespace == "" || strings.HasPrefix(k, namespace+"/")) && sel.Matches(labels.Set(objectLabels(obj))) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	items := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		items = append(items, st.objects[k])
	}
	return items
}

func (st *store) create(w http.ResponseWriter, r *http.Request) {
	namespace := r.PathValue("namespace")
	var obj map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&obj); err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "the body is not a JSON object: "+err.Error())
		return
	}
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		writeStatus(w, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "metadata.name is required")
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	key := namespace + "/" + name
	if _, ok := st.objects[key]; ok {
		writeStatus(w, http.StatusConflict, metav1.StatusReasonAlreadyExists, fmt.Sprintf("%s %q already exists", st.g.Resource, name))
		return
	}
	st.version++
	meta["namespace"] = namespace
	meta["uid"] = string(uuid.NewUUID())
	meta["resourceVersion"] = strconv.FormatInt(st.version, 10)
	meta["creationTimestamp"] = time.Now().UTC().Format(time.RFC3339)
	obj["metadata"], obj["apiVersion"], obj["kind"] = meta, st.g.GroupVersion(), st.g.Kind
	st.objects[key] = obj
	writeJSON(w, http.StatusCreated, obj)
}

func (st *store) get(w http.ResponseWriter, r *http.Request)    { st.answerObject(w, r, false) }
func (st *store) delete(w http.ResponseWriter, r *http.Request) { st.answerObject(w, r, true) }

// answerObject answers the object the path names, deleting it first when remove is set.
func (st *store) answerObject(w http.ResponseWriter, r *http.Request, remove bool) {
	key := r.PathValue("namespace") + "/" + r.PathValue("name")
	st.mu.Lock()
	obj, ok := st.objects[key]
	if ok && remove {
		delete(st.objects, key)
		st.version++
	}
	st.mu.Unlock()
	if !ok {
		st.notFound(w, r.PathValue("name"))
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

func (st *store) deleteCollection(w http.ResponseWriter, r *http.Request) {
	sel, err := labels.Parse(r.URL.Query().Get("labelSelector"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	namespace := r.PathValue("namespace")
	st.mu.Lock()
	items := st.matching(namespace, sel)
	for _, obj := range items {
		meta, _ := obj["metadata"].(map[string]any)
		delete(st.objects, namespace+"/"+fmt.Sprint(meta["name"]))
	}
	st.version++
	st.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"apiVersion": st.g.GroupVersion(), "kind": st.g.Kind + "List", "metadata": map[string]any{}, "items": items})
}

func (st *store) notFound(w http.ResponseWriter, name string) {
	writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("%s %q not found", st.g.Resource, name))
}

// objectLabels reads metadata.labels of a stored object.
func objectLabels(obj map[string]any) map[string]string {
	meta, _ := obj["metadata"].(map[string]any)
	raw, _ := meta["labels"].(map[string]any)
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	writeJSON(w, code, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message})
}
