package aggregated

import (
	"encoding/json"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// discoveryRoutes serves legacy discovery only. An aggregator asks an APIService's server
// for /apis in the aggregated format first and, answered in another, falls back to
// /apis/<group>/<version> (k8s.io/kube-aggregator v0.36.3 pkg/apiserver
// handler_discovery.go:232-259 asks, :314-330 falls back), which is also the path its
// availability check reads
// (pkg/controllers/status/remote/remote_available_controller.go:290-302): the fallback is
// what every version of the aggregator understands.
func (s *Server) discoveryRoutes(mux *http.ServeMux) {
	g := s.GVR
	gv := metav1.GroupVersionForDiscovery{GroupVersion: g.GroupVersion(), Version: g.Version}
	group := metav1.APIGroup{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"},
		Name:     g.Group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv,
	}
	mux.HandleFunc("GET /apis", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{group}})
	})
	mux.HandleFunc("GET /apis/"+g.Group, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, group)
	})
	mux.HandleFunc("GET /apis/"+g.GroupVersion(), func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: g.GroupVersion(),
			APIResources: []metav1.APIResource{{Name: g.Resource, SingularName: strings.ToLower(g.Kind), Namespaced: true, Kind: g.Kind, Verbs: g.Verbs}},
		})
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
