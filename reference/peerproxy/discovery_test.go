package peerproxy

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func res(name string, verbs ...string) apidiscoveryv2.APIResourceDiscovery {
	return apidiscoveryv2.APIResourceDiscovery{Resource: name, Scope: apidiscoveryv2.ScopeNamespace, Verbs: verbs,
		ResponseKind: &metav1.GroupVersionKind{Kind: name}}
}

func ver(version string, resources ...apidiscoveryv2.APIResourceDiscovery) apidiscoveryv2.APIVersionDiscovery {
	return apidiscoveryv2.APIVersionDiscovery{Version: version, Resources: resources, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
}

func group(name string, versions ...apidiscoveryv2.APIVersionDiscovery) apidiscoveryv2.APIGroupDiscovery {
	return apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}, Versions: versions}
}

func list(groups ...apidiscoveryv2.APIGroupDiscovery) *apidiscoveryv2.APIGroupDiscoveryList {
	return &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
		Items:    groups,
	}
}

func TestMergeDiscovery(t *testing.T) {
	local := list(
		group("apps", ver("v1", res("deployments", "get"), res("statefulsets", "get"))),
		group("batch", ver("v1", res("jobs", "get"), res("cronjobs", "get"))),
		group("storage.k8s.io", ver("v1", res("storageclasses", "get"))),
	)
	peer1 := list(
		// A group only peers serve.
		group("resource.k8s.io", ver("v1", res("deviceclasses", "get"))),
		// A version only a peer serves, and a resource only a peer serves in a shared version;
		// what both serve (jobs, here with other verbs) is not repeated and the local copy wins.
		group("batch", ver("v1", res("jobs", "get", "list"), res("newjobs", "get")), ver("v2alpha1", res("jobs", "get"))),
	)
	peer2 := list(
		group("apps", ver("v1", res("deployments", "get"))),
		// Another peer adds a version and a resource to the peer-only group: appended in order.
		group("resource.k8s.io", ver("v1", res("deviceclasses", "get"), res("resourceclaims", "get")), ver("v1beta2", res("deviceclasses", "get"))),
		group("batch", ver("v2alpha1", res("jobs", "get"), res("cronjobs", "get"))),
		group("storagemigration.k8s.io", ver("v1alpha1", res("storageversionmigrations", "get"))),
	)
	inputs := []*apidiscoveryv2.APIGroupDiscoveryList{local, nil, peer1, peer2, nil}
	var before []*apidiscoveryv2.APIGroupDiscoveryList
	for _, l := range inputs {
		before = append(before, l.DeepCopy())
	}

	got := mergeDiscovery(inputs...)

	want := list(
		group("apps", ver("v1", res("deployments", "get"), res("statefulsets", "get"))),
		group("batch",
			ver("v1", res("jobs", "get"), res("cronjobs", "get"), res("newjobs", "get")),
			ver("v2alpha1", res("jobs", "get"), res("cronjobs", "get"))),
		group("storage.k8s.io", ver("v1", res("storageclasses", "get"))),
		group("resource.k8s.io",
			ver("v1", res("deviceclasses", "get"), res("resourceclaims", "get")),
			ver("v1beta2", res("deviceclasses", "get"))),
		group("storagemigration.k8s.io", ver("v1alpha1", res("storageversionmigrations", "get"))),
	)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeDiscovery:\n got %s\nwant %s", summary(got), summary(want))
		if !reflect.DeepEqual(got.TypeMeta, want.TypeMeta) {
			t.Errorf("TypeMeta = %+v, want %+v", got.TypeMeta, want.TypeMeta)
		}
	}
	if !reflect.DeepEqual(inputs, before) {
		t.Errorf("mergeDiscovery modified its inputs:\n got %v\nwant %v", summaries(inputs), summaries(before))
	}

	// The result shares no memory with the inputs: changing it leaves them alone.
	got.Items[0].Versions[0].Resources[0].Verbs[0] = "changed"
	got.Items[1].Versions[0].Resources = append(got.Items[1].Versions[0].Resources, res("extra"))
	got.Items[1].Versions[1].Resources[0].Resource = "changed"
	if !reflect.DeepEqual(inputs, before) {
		t.Errorf("changing the merged list changed the inputs:\n got %v\nwant %v", summaries(inputs), summaries(before))
	}
}

func TestMergeDiscoveryEdges(t *testing.T) {
	empty := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
	tests := []struct {
		name  string
		lists []*apidiscoveryv2.APIGroupDiscoveryList
		want  *apidiscoveryv2.APIGroupDiscoveryList
	}{
		{"no lists", nil, empty},
		{"only nil lists", []*apidiscoveryv2.APIGroupDiscoveryList{nil, nil}, empty},
		{"one list is itself", []*apidiscoveryv2.APIGroupDiscoveryList{list(group("apps", ver("v1", res("deployments"))))},
			list(group("apps", ver("v1", res("deployments"))))},
		{"nil local", []*apidiscoveryv2.APIGroupDiscoveryList{nil, list(group("apps", ver("v1", res("deployments"))))},
			list(group("apps", ver("v1", res("deployments"))))},
		{"same list twice", []*apidiscoveryv2.APIGroupDiscoveryList{
			list(group("apps", ver("v1", res("deployments"), res("replicasets")))),
			list(group("apps", ver("v1", res("deployments"), res("replicasets"))))},
			list(group("apps", ver("v1", res("deployments"), res("replicasets"))))},
		{"TypeMeta is set even when inputs lack it", []*apidiscoveryv2.APIGroupDiscoveryList{
			{Items: []apidiscoveryv2.APIGroupDiscovery{group("apps", ver("v1", res("deployments")))}}},
			list(group("apps", ver("v1", res("deployments"))))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergeDiscovery(tt.lists...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("mergeDiscovery = %s, want %s", summary(got), summary(tt.want))
			}
		})
	}
}

// summary is a compact "group: version[resources] ..." form for failure messages.
func summary(l *apidiscoveryv2.APIGroupDiscoveryList) string {
	if l == nil {
		return "<nil>"
	}
	s := ""
	for _, g := range l.Items {
		s += g.Name + ":"
		for _, v := range g.Versions {
			s += " " + v.Version + "["
			for i, r := range v.Resources {
				if i > 0 {
					s += ","
				}
				s += r.Resource
			}
			s += "]"
		}
		s += "; "
	}
	return s
}

func summaries(ls []*apidiscoveryv2.APIGroupDiscoveryList) []string {
	var out []string
	for _, l := range ls {
		out = append(out, summary(l))
	}
	return out
}

const (
	acceptKubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	acceptNoPeer  = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer," + acceptKubectl
)

func TestAcceptHeaders(t *testing.T) {
	tests := []struct {
		name, accept       string
		aggregated, nopeer bool
	}{
		{"kubectl", acceptKubectl, true, false},
		{"v2 only", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", true, false},
		{"v2 with spaces", "application/json; g=apidiscovery.k8s.io; v=v2; as=APIGroupDiscoveryList", true, false},
		{"client-go nopeer", acceptNoPeer, true, true},
		{"nopeer only", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer", true, true},
		{"v2beta1 first", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json", false, false},
		{"v2beta1 only", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", false, false},
		{"plain json", "application/json", false, false},
		{"json first, v2 second", "application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", false, false},
		{"anything", "*/*", false, false},
		{"none", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/apis", nil)
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			if got := isAggregatedV2(r); got != tt.aggregated {
				t.Errorf("isAggregatedV2(%q) = %v, want %v", tt.accept, got, tt.aggregated)
			}
			if got := noPeer(r); got != tt.nopeer {
				t.Errorf("noPeer(%q) = %v, want %v", tt.accept, got, tt.nopeer)
			}
		})
	}
}
