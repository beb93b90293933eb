package gateway

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// fuzzRequest is the request a client sends as method, path and query, or false when
// net/http would not hand it to the gateway (a method that is no token).
func fuzzRequest(method, path, query string) (*http.Request, bool) {
	if method == "" || strings.ContainsAny(method, " \t\r\n/()<>@,;:\\\"[]?={}") {
		return nil, false
	}
	r := &http.Request{Method: method, URL: &url.URL{Path: path, RawQuery: query}, Header: http.Header{}}
	return r, true
}

// FuzzParseRequestInfo checks what the dispatch rules see of any request a client sends,
// as kube-apiserver's RequestInfoFactory decides it (the rule table in TestRuleMatching
// rests on it):
//   - a non-resource request's verb is its method, lower-cased, and it names no resource;
//   - a resource request's verb is a Kubernetes verb; a GET of a collection is list, or
//     watch when ?watch= says so ("watch is its own verb"), and a name from a
//     metadata.name field selector is what the selector names ("list with a name field
//     selector is still list"); a DELETE of a collection is deletecollection;
//   - every part is at most one path segment;
//   - a group-version document (/apis/<g>/<v>) is not a resource request, so the
//     discovery filter of balance.go, not a resource's, picks its servers.
func FuzzParseRequestInfo(f *testing.F) {
	for _, s := range [][3]string{
		{"GET", "/api/v1/namespaces/default/pods", "limit=1"},
		{"GET", "/api/v1/namespaces/default/pods/p1/log", ""},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", ""},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch=1&timeoutSeconds=1"},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch=true"},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch=false"},
		{"GET", "/api/v1/namespaces/default/configmaps", "watch="},
		{"GET", "/api/v1/namespaces/default/configmaps", "fieldSelector=metadata.name%3Dc1"},
		{"GET", "/api/v1/namespaces/default/configmaps", "fieldSelector=metadata.name%3Da%2Fb"},
		{"POST", "/api/v1/namespaces/default/configmaps", "dryRun=All"},
		{"DELETE", "/api/v1/namespaces/default/configmaps", ""},
		{"GET", "/api/v1/watch/namespaces/default/pods", ""},
		{"GET", "/api/v1/proxy/namespaces/default/pods/p/x/y", ""},
		{"GET", "/api/v1/namespaces/default/pods/skewcheck-no-such-pod/exec", "command=true&stdout=true"},
		{"GET", "/api/v1/namespaces/ns/status", ""},
		{"PUT", "/api/v1/namespaces/ns/finalize", ""},
		{"GET", "/apis/apps/v1", ""},
		{"GET", "/apis/apps/v1/watch", ""},
		{"GET", "/version", ""},
		{"GET", "/healthz/etcd", ""},
		{"GET", "/openapi/v3", ""},
		{"OPTIONS", "/api/v1/pods", ""},
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", ""},
		{"GET", "//api//v1//pods", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	verbs := map[string]bool{"get": true, "list": true, "watch": true, "create": true, "update": true, "patch": true,
		"delete": true, "deletecollection": true, "proxy": true, "": true}
	f.Fuzz(func(t *testing.T, method, path, query string) {
		r, ok := fuzzRequest(method, path, query)
		if !ok {
			return
		}
		info := parseRequestInfo(r)
		if !info.IsResourceRequest {
			if info.Verb != strings.ToLower(method) || info.Resource != "" || info.Name != "" || info.Namespace != "" {
				t.Fatalf("%s %s?%s: a non-resource request read as %+v", method, path, query, info)
			}
			return
		}
		for _, part := range []string{info.APIGroup, info.APIVersion, info.Namespace, info.Resource, info.Subresource, info.Name} {
			if strings.Contains(part, "/") {
				t.Fatalf("%s %s?%s: %+v has a part of several segments", method, path, query, info)
			}
		}
		if !verbs[info.Verb] {
			t.Fatalf("%s %s?%s: verb %q is no Kubernetes verb", method, path, query, info.Verb)
		}
		if _, _, gv := groupVersionPath(path); gv {
			t.Fatalf("%s %s: a group-version document read as the resource request %+v", method, path, info)
		}
		if info.Verb == "get" && info.Name == "" || info.Verb == "delete" && info.Name == "" {
			t.Fatalf("%s %s?%s: %q with no name, want list, watch or deletecollection", method, path, query, info.Verb)
		}
		q, _ := url.ParseQuery(query)
		if (method == http.MethodGet || method == http.MethodHead) && info.Verb != "proxy" && (info.Verb == "list" || info.Verb == "watch") {
			w := q["watch"]
			wantWatch := len(w) > 0 && w[0] != "0" && !strings.EqualFold(w[0], "false")
			if (info.Verb == "watch") != wantWatch && !slices.Contains(strings.Split(path, "/"), "watch") {
				t.Fatalf("%s %s?%s: verb %q, want watch %v", method, path, query, info.Verb, wantWatch)
			}
		}
	})
}
