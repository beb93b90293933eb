package gateway

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/fields"
)

// requestInfo is what kube-apiserver's request.RequestInfoFactory decides about a request,
// decided the same way. It is re-implemented here, rule for rule, rather than imported:
// k8s.io/apiserver would pull newer grpc and otel modules into the whole module than the
// embedded etcd is built with.
type requestInfo struct {
	IsResourceRequest bool
	Path              string
	// Verb is the Kubernetes verb (get, list, watch, create, update, patch, delete,
	// deletecollection, proxy) for a resource request, the lowercase method otherwise.
	Verb                                   string
	APIPrefix, APIGroup, APIVersion        string
	Namespace, Resource, Subresource, Name string
}

// key is the request's GVR as framework/apis/discovery keys it ("core" for the legacy group).
func (r requestInfo) key() string {
	g := r.APIGroup
	if g == "" {
		g = "core"
	}
	return g + "/" + r.APIVersion + "/" + r.Resource
}

var (
	// Verbs given as a path segment before the resource (/api/v1/watch/pods, .../proxy/...).
	specialVerbs = map[string]bool{"proxy": true, "watch": true}
	// Subresources of a namespace, not namespaced resources (/api/v1/namespaces/x/status).
	namespaceSubresources = map[string]bool{"status": true, "finalize": true}
)

// parseRequestInfo follows RequestInfoFactory.NewRequestInfo for the prefixes
// kube-apiserver serves: "api" (no group) and "apis".
func parseRequestInfo(r *http.Request) requestInfo {
	info := requestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix, parts = parts[0], parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 3 {
			return info // /apis/<group>/<version>: discovery, not a resource
		}
		info.APIGroup, parts = parts[0], parts[1:]
	}
	info.IsResourceRequest = true
	info.APIVersion, parts = parts[0], parts[1:]

	if specialVerbs[parts[0]] {
		if len(parts) < 2 {
			// kube-apiserver fails such a request; as a resource request with no resource
			// it matches only rules for every resource.
			info.Verb = parts[0]
			return info
		}
		info.Verb, parts = parts[0], parts[1:]
	} else {
		info.Verb = verbForMethod(r.Method)
	}

	if parts[0] == "namespaces" {
		if len(parts) > 1 {
			info.Namespace = parts[1]
			if len(parts) > 2 && !namespaceSubresources[parts[2]] {
				parts = parts[2:]
			}
		}
	}

	switch {
	case len(parts) >= 3 && info.Verb != "proxy":
		info.Subresource = parts[2]
		fallthrough
	case len(parts) >= 2:
		info.Name = parts[1]
		fallthrough
	case len(parts) >= 1:
		info.Resource = parts[0]
	}

	if info.Name == "" && info.Verb == "get" {
		q := r.URL.Query()
		info.Verb = "list"
		if watchRequested(q["watch"]) {
			info.Verb = "watch"
		}
		if sel, err := fields.ParseSelector(q.Get("fieldSelector")); err == nil {
			if name, ok := sel.RequiresExactMatch("metadata.name"); ok && len(path.IsValidPathSegmentName(name)) == 0 {
				info.Name = name
			}
		}
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info
}

func verbForMethod(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodGet, http.MethodHead:
		return "get"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return ""
}

// watchRequested decodes ?watch= as apimachinery decodes a bool query parameter: absent is
// false; "0" and "false" (any case) are false; anything else, even empty, is true.
func watchRequested(values []string) bool {
	if len(values) == 0 {
		return false
	}
	v := values[0]
	return v != "0" && !strings.EqualFold(v, "false")
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// longRunning is kube-apiserver's BasicLongRunningRequestCheck with its default sets
// (verbs watch and proxy; subresources attach, exec, proxy, log, portforward): these
// requests last as long as the client wants and must not hold a max-inflight slot.
func (r requestInfo) longRunning() bool {
	if !r.IsResourceRequest {
		return false
	}
	switch r.Verb {
	case "watch", "proxy":
		return true
	}
	switch r.Subresource {
	case "attach", "exec", "proxy", "log", "portforward":
		return true
	}
	return false
}
