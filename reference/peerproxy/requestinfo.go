package peerproxy

import "strings"

// requestInfo is what routing needs to know of a request path: whether it names a resource
// and which group/version/resource. Non-resource requests (/apis, /apis/<g>/<v>, /healthz,
// /version, ...) are always served locally, as upstream does.
type requestInfo struct {
	isResource           bool
	group, version, name string // name is the resource, e.g. "pods"
}

// key matches framework/apis/discovery.GVR.Key: "group/version/resource", "core" for "".
func (r requestInfo) key() string {
	g := r.group
	if g == "" {
		g = "core"
	}
	return g + "/" + r.version + "/" + r.name
}

// parsePath follows the layout kube-apiserver serves:
//
//	/api/v1/<resource>[/<name>[/<subresource>]]
//	/api/v1/namespaces/<ns>/<resource>[/<name>[/<subresource>]]
//	/apis/<group>/<version>/... the same
//
// namespaces/<ns>/status and namespaces/<ns>/finalize are subresources of namespaces, not
// namespaced resources; a leading "watch" segment is the old watch path.
func parsePath(path string) requestInfo {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var info requestInfo
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		info.version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		info.group, info.version, parts = parts[1], parts[2], parts[3:]
	default:
		return requestInfo{}
	}
	if parts[0] == "watch" {
		parts = parts[1:]
	}
	if len(parts) >= 3 && parts[0] == "namespaces" && parts[2] != "status" && parts[2] != "finalize" {
		parts = parts[2:]
	}
	if len(parts) == 0 || parts[0] == "" {
		return requestInfo{}
	}
	info.isResource, info.name = true, parts[0]
	return info
}
