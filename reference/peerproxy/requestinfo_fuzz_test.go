package peerproxy

import (
	"strings"
	"testing"
)

// FuzzParsePath checks what routing relies on for any path a client sends:
//   - a resource request names a resource, and each of its parts is one path segment; its
//     key is "<group or core>/<version>/<resource>", what discovery.Set is keyed by
//     (TestParsePathResources, TestRequestInfoKey);
//   - a group-version document (/apis/<group>/<version>) is never a resource request: it
//     is discovery, answered for the control plane and never routed as a resource
//     (TestParsePathNonResource, TestGroupVersionPath);
//   - the old watch path names the resource its plain path names (TestParsePathResources:
//     /api/v1/watch/pods is pods).
func FuzzParsePath(f *testing.F) {
	for _, p := range []string{
		"/api/v1/pods", "/api/v1/pods/", "/api/v1/namespaces/ns/pods/p/log", "/api/v1/namespaces", "/api/v1/namespaces/ns",
		"/api/v1/namespaces/ns/status", "/api/v1/namespaces/ns/finalize", "/api/v1/watch/pods", "/api/v1/watch/namespaces/ns/pods",
		"/apis/batch/v1/namespaces/ns/jobs/j/status", "/apis/batch/v1/watch/namespaces/ns/jobs",
		"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings/b", "/apis/apps/v1/namespaces/ns/deployments/d/scale",
		"", "/", "/apis", "/apis/", "/api", "/apis/batch", "/apis/batch/v1", "/apis/batch/v1/", "/api/v1", "/api/v1/watch",
		"/healthz", "/version", "/openapi/v3/apis/batch/v1", "/apis//batch/v1", "//api//v1//pods", "/apis/batch/v1/watch/",
		"/api/v1/namespaces/default/pods/skewcheck-no-such-pod/exec", "/apis/nosuchgroup.skewcheck.io/v1/things",
		"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/",
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		info := parsePath(path)
		if info.isResource {
			// Empty segments ("//api//v1//pods") stay empty, as kube-apiserver's
			// RequestInfoFactory leaves them; the resource never is.
			if info.name == "" || strings.ContainsRune(info.group+info.version+info.name, '/') {
				t.Fatalf("parsePath(%q) = %+v: a resource request with no resource or a multi-segment part", path, info)
			}
			g := info.group
			if g == "" {
				g = "core"
			}
			if info.key() != g+"/"+info.version+"/"+info.name {
				t.Fatalf("parsePath(%q).key() = %q", path, info.key())
			}
		} else if info != (requestInfo{}) {
			t.Fatalf("parsePath(%q) = %+v: a non-resource request must carry nothing", path, info)
		}
		if g, v, ok := groupVersionPath(path); ok && info.isResource {
			t.Fatalf("%q is the discovery document of %s/%s, and parsePath routes it as the resource %+v", path, g, v, info)
		}
		// The same path through the old watch prefix.
		for _, prefix := range []string{"/api/v1/", "/apis/batch/v1/"} {
			rest, ok := strings.CutPrefix(path, prefix)
			if !ok || rest == "" || strings.HasPrefix(rest, "watch") {
				continue
			}
			if w := parsePath(prefix + "watch/" + rest); w != info {
				t.Fatalf("parsePath(%q) = %+v, but through the watch prefix %+v", path, info, w)
			}
		}
	})
}
