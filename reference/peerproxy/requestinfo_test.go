package peerproxy

import "testing"

func TestParsePathResources(t *testing.T) {
	tests := []struct {
		path                 string
		group, version, name string
	}{
		{"/api/v1/pods", "", "v1", "pods"},
		{"/api/v1/pods/", "", "v1", "pods"},
		{"/api/v1/namespaces/ns/pods/p/log", "", "v1", "pods"},
		{"/api/v1/namespaces/ns/pods", "", "v1", "pods"},
		{"/api/v1/namespaces", "", "v1", "namespaces"},
		{"/api/v1/namespaces/ns", "", "v1", "namespaces"},
		{"/api/v1/namespaces/ns/status", "", "v1", "namespaces"},
		{"/api/v1/namespaces/ns/finalize", "", "v1", "namespaces"},
		{"/api/v1/watch/pods", "", "v1", "pods"},
		{"/api/v1/watch/namespaces/ns/pods", "", "v1", "pods"},
		{"/apis/batch/v1/namespaces/ns/jobs/j/status", "batch", "v1", "jobs"},
		{"/apis/batch/v1/jobs", "batch", "v1", "jobs"},
		{"/apis/batch/v1/watch/jobs", "batch", "v1", "jobs"},
		{"/apis/batch/v1/watch/namespaces/ns/jobs", "batch", "v1", "jobs"},
		{"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings", "admissionregistration.k8s.io", "v1", "mutatingadmissionpolicybindings"},
		{"/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings/b", "admissionregistration.k8s.io", "v1", "mutatingadmissionpolicybindings"},
		{"/apis/apps/v1/namespaces/ns/deployments/d/scale", "apps", "v1", "deployments"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := parsePath(tt.path)
			want := requestInfo{isResource: true, group: tt.group, version: tt.version, name: tt.name}
			if got != want {
				t.Errorf("parsePath(%q) = %+v, want %+v", tt.path, got, want)
			}
		})
	}
}

func TestParsePathNonResource(t *testing.T) {
	for _, path := range []string{
		"", "/", "/apis", "/apis/", "/api", "/api/", "/apis/batch", "/apis/batch/v1", "/apis/batch/v1/",
		"/api/v1", "/api/v1/", "/api/v1/watch", "/apis/batch/v1/watch",
		"/healthz", "/livez", "/readyz", "/version", "/openapi/v2", "/openapi/v3/apis/batch/v1", "/metrics",
	} {
		t.Run(path, func(t *testing.T) {
			if got := parsePath(path); got != (requestInfo{}) {
				t.Errorf("parsePath(%q) = %+v, want a non-resource request", path, got)
			}
		})
	}
}

func TestRequestInfoKey(t *testing.T) {
	tests := []struct {
		info requestInfo
		want string
	}{
		{requestInfo{isResource: true, version: "v1", name: "pods"}, "core/v1/pods"},
		{requestInfo{isResource: true, group: "batch", version: "v1", name: "jobs"}, "batch/v1/jobs"},
		{requestInfo{isResource: true, group: "admissionregistration.k8s.io", version: "v1beta1", name: "mutatingadmissionpolicies"},
			"admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies"},
	}
	for _, tt := range tests {
		if got := tt.info.key(); got != tt.want {
			t.Errorf("%+v.key() = %q, want %q", tt.info, got, tt.want)
		}
	}
	// The key must be the one the registry's discovery.Set is keyed by.
	if got, want := parsePath("/api/v1/namespaces/ns/pods/p").key(), "core/v1/pods"; got != want {
		t.Errorf("parsePath(...).key() = %q, want %q", got, want)
	}
	if got, want := parsePath("/apis/batch/v1/namespaces/ns/jobs").key(), "batch/v1/jobs"; got != want {
		t.Errorf("parsePath(...).key() = %q, want %q", got, want)
	}
}
