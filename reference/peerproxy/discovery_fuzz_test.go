package peerproxy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fuzzDiscovery reads an aggregated discovery document from "group/version/resource"
// words ("" for the core group: "/v1/pods"), as an apiserver would list them: UTF-8
// names, groups, versions and resources in the order first named, none twice. Every
// resource's verbs are [origin], so a merge shows whose copy it kept.
func fuzzDiscovery(words, origin string) *apidiscoveryv2.APIGroupDiscoveryList {
	if words == "-" {
		return nil // a server whose document was never read
	}
	out := list()
	for _, w := range strings.Fields(words) {
		p := strings.Split(w, "/")
		if len(p) != 3 || p[1] == "" || p[2] == "" || !utf8.ValidString(w) {
			continue // a document is JSON: every name in it is UTF-8
		}
		gi := -1
		for i, g := range out.Items {
			if g.Name == p[0] {
				gi = i
			}
		}
		if gi < 0 {
			out.Items, gi = append(out.Items, group(p[0])), len(out.Items)
		}
		g := &out.Items[gi]
		vi := -1
		for i, v := range g.Versions {
			if v.Version == p[1] {
				vi = i
			}
		}
		if vi < 0 {
			g.Versions, vi = append(g.Versions, ver(p[1])), len(g.Versions)
		}
		v := &g.Versions[vi]
		dup := false
		for _, r := range v.Resources {
			dup = dup || r.Resource == p[2]
		}
		if dup {
			continue
		}
		v.Resources = append(v.Resources, res(p[2], origin))
	}
	return out
}

// gvrs lists a document's group/version/resource triples, and the verbs of each.
func gvrs(l *apidiscoveryv2.APIGroupDiscoveryList) map[string][]string {
	out := map[string][]string{}
	if l == nil {
		return out
	}
	for _, g := range l.Items {
		for _, v := range g.Versions {
			for _, r := range v.Resources {
				out[g.Name+"/"+v.Version+"/"+r.Resource] = r.Verbs
			}
		}
	}
	return out
}

var discoverySeeds = [][3]string{
	{"apps/v1/deployments apps/v1/statefulsets batch/v1/jobs batch/v1/cronjobs storage.k8s.io/v1/storageclasses",
		"resource.k8s.io/v1/deviceclasses batch/v1/jobs batch/v1/newjobs batch/v2alpha1/jobs",
		"apps/v1/deployments resource.k8s.io/v1/deviceclasses resource.k8s.io/v1/resourceclaims resource.k8s.io/v1beta2/deviceclasses batch/v2alpha1/cronjobs storagemigration.k8s.io/v1alpha1/storageversionmigrations"},
	{"/v1/pods apps/v1/deployments", "-", "/v1/pods /v1/configmaps"},
	{"-", "batch/v1/jobs", ""},
	{"a/v1/x a/v2/x", "a/v2/y a/v1/x", "b/v1/x a/v3/x"},
}

// FuzzMergeDiscovery: merged /apis (mergeDiscovery) lists every group, version and
// resource of each server's document, no group, version or resource twice, nothing no
// server serves, the local document's groups first in its order and its copy of what both
// serve, and leaves the documents it merges as they were (TestMergeDiscovery,
// TestMergeDiscoveryEdges; the discovery suite's merged-view tests).
func FuzzMergeDiscovery(f *testing.F) {
	for _, s := range discoverySeeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, local, peer1, peer2 string) {
		inputs := []*apidiscoveryv2.APIGroupDiscoveryList{fuzzDiscovery(local, "local"), fuzzDiscovery(peer1, "peer1"), fuzzDiscovery(peer2, "peer2")}
		var before []*apidiscoveryv2.APIGroupDiscoveryList
		for _, l := range inputs {
			before = append(before, l.DeepCopy())
		}
		got := mergeDiscovery(inputs...)
		if !reflect.DeepEqual(inputs, before) {
			t.Fatalf("mergeDiscovery changed its inputs: %v, were %v", inputs, before)
		}
		groups := map[string]bool{}
		for _, g := range got.Items {
			if groups[g.Name] {
				t.Fatalf("group %q listed twice: %v", g.Name, got.Items)
			}
			groups[g.Name] = true
			versions := map[string]bool{}
			for _, v := range g.Versions {
				if versions[v.Version] {
					t.Fatalf("group %q lists version %q twice", g.Name, v.Version)
				}
				versions[v.Version] = true
				resources := map[string]bool{}
				for _, r := range v.Resources {
					if resources[r.Resource] {
						t.Fatalf("%s/%s lists %q twice", g.Name, v.Version, r.Resource)
					}
					resources[r.Resource] = true
				}
			}
		}
		merged := gvrs(got)
		want := map[string][]string{}
		for _, l := range inputs {
			for k, verbs := range gvrs(l) {
				if _, ok := want[k]; !ok {
					want[k] = verbs // the first server's copy: the local one when it serves it
				}
			}
		}
		if !reflect.DeepEqual(merged, want) {
			t.Fatalf("merged %v, want every server's %v", merged, want)
		}
		if inputs[0] != nil {
			for i, g := range inputs[0].Items {
				if got.Items[i].Name != g.Name {
					t.Fatalf("merged group %d is %q, want the local document's %q first", i, got.Items[i].Name, g.Name)
				}
			}
		}
	})
}

// FuzzLegacyGroupList: legacy /apis, the apiserver's APIGroupList with groupVersions added
// (addGroupVersions of registry.groupVersions), lists every group-version any server
// serves once, and keeps the apiserver's preferred version of each group it lists
// (TestLegacyGroupListAddsPeerGroupVersions); a group-version document both serve gets
// each resource only a peer serves once, after the apiserver's own
// (addResources of peerOnlyResources, TestLegacyGroupVersionMergesPeerResources).
func FuzzLegacyGroupList(f *testing.F) {
	for _, s := range discoverySeeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, local, peer1, peer2 string) {
		r := &registry{local: view{apis: fuzzDiscovery(local, "local")}, peers: map[string]view{
			"a": {id: "a", apis: fuzzDiscovery(peer1, "peer1")}, "b": {id: "b", apis: fuzzDiscovery(peer2, "peer2")}}}
		// The apiserver's own legacy list: its document's group-versions, the first preferred.
		var own metav1.APIGroupList
		if l := r.local.apis; l != nil {
			for _, g := range l.Items {
				ag := metav1.APIGroup{Name: g.Name}
				for _, v := range g.Versions {
					ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: g.Name + "/" + v.Version, Version: v.Version})
				}
				if len(ag.Versions) > 0 {
					ag.PreferredVersion = ag.Versions[0]
				}
				own.Groups = append(own.Groups, ag)
			}
		}
		body, _ := json.Marshal(own)
		b, err := addGroupVersions(body, r.groupVersions())
		var got metav1.APIGroupList
		if err != nil || json.Unmarshal(b, &got) != nil {
			t.Fatalf("addGroupVersions(%s): %s, %v", body, b, err)
		}
		listed := map[string]bool{}
		for _, g := range got.Groups {
			for _, v := range g.Versions {
				if listed[g.Name+"/"+v.Version] {
					t.Fatalf("legacy /apis lists %s/%s twice: %s", g.Name, v.Version, b)
				}
				listed[g.Name+"/"+v.Version] = true
			}
		}
		for _, v := range []view{r.local, r.peers["a"], r.peers["b"]} {
			for k := range gvrs(v.apis) {
				gv := k[:strings.LastIndex(k, "/")]
				if !listed[gv] {
					t.Fatalf("legacy /apis lacks %s, which a server serves: %s", gv, b)
				}
			}
		}
		for i, g := range own.Groups {
			if got.Groups[i].Name != g.Name || got.Groups[i].PreferredVersion != g.PreferredVersion {
				t.Fatalf("group %d: %q preferring %v, want the apiserver's %q preferring %v", i, got.Groups[i].Name, got.Groups[i].PreferredVersion, g.Name, g.PreferredVersion)
			}
		}

		// Each group-version the local apiserver serves, as the local document with the
		// peers' resources added.
		for k := range gvrs(r.local.apis) {
			parts := strings.Split(k, "/")
			g, v := parts[0], parts[1]
			var doc metav1.APIResourceList
			for _, res := range groupVersionResources(r.local.apis, g, v) {
				doc.APIResources = append(doc.APIResources, legacyResources(g, v, res)...)
			}
			body, _ := json.Marshal(doc)
			b, err := addResources(body, r.peerOnlyResources(g, v))
			var merged metav1.APIResourceList
			if err != nil || json.Unmarshal(b, &merged) != nil {
				t.Fatalf("addResources(%s): %s, %v", body, b, err)
			}
			names := map[string]bool{}
			for _, res := range merged.APIResources {
				if names[res.Name] {
					t.Fatalf("%s/%s lists %q twice: %s", g, v, res.Name, b)
				}
				names[res.Name] = true
			}
			for _, pv := range []view{r.local, r.peers["a"], r.peers["b"]} {
				for _, res := range groupVersionResources(pv.apis, g, v) {
					if !names[res.Resource] {
						t.Fatalf("%s/%s lacks %q, which a server serves: %s", g, v, res.Resource, b)
					}
				}
			}
			for i, res := range doc.APIResources {
				if merged.APIResources[i].Name != res.Name {
					t.Fatalf("%s/%s: entry %d is %q, want the apiserver's own %q first", g, v, i, merged.APIResources[i].Name, res.Name)
				}
			}
		}
	})
}
