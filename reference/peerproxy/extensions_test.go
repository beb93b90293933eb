package peerproxy

import (
	"context"
	"slices"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func gvr(group, version, resource string) discovery.GVR {
	return discovery.GVR{Group: group, Version: version, Resource: resource}
}

func peerView(gvrs ...discovery.GVR) view {
	served := discovery.Set{}
	list := &apidiscoveryv2.APIGroupDiscoveryList{}
	for _, g := range gvrs {
		served[g.Key()] = g
		i := slices.IndexFunc(list.Items, func(d apidiscoveryv2.APIGroupDiscovery) bool { return d.Name == g.Group })
		if i < 0 {
			list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{})
			i = len(list.Items) - 1
			list.Items[i].Name = g.Group
		}
		list.Items[i].Versions = append(list.Items[i].Versions, apidiscoveryv2.APIVersionDiscovery{Version: g.Version,
			Resources: []apidiscoveryv2.APIResourceDiscovery{{Resource: g.Resource}}})
	}
	return view{id: "peer", url: "https://peer", served: served, apis: list}
}

// A peer's view loses exactly the extensions' group-versions, in routing and in the
// document merged discovery lists, and a group left with no version goes with them.
func TestStripLeavesExtensionsOut(t *testing.T) {
	jobs, widgets := gvr("batch", "v1", "jobs"), gvr("w.crd.skewcheck.io", "v1", "widgets")
	old := gvr("m.example.com", "v1beta1", "metrics")
	kept := gvr("m.example.com", "v1", "metrics")
	e := extensions{}
	e.saw([]string{"w.crd.skewcheck.io/v1", "m.example.com/v1beta1"}, time.Now())
	v := e.strip(peerView(jobs, widgets, old, kept))
	if !v.served.Has(jobs.Key()) || !v.served.Has(kept.Key()) || v.served.Has(widgets.Key()) || v.served.Has(old.Key()) {
		t.Errorf("routing view %v: want batch/v1 and m.example.com/v1 only", v.served.Sorted())
	}
	var listed []string
	for _, g := range v.apis.Items {
		for _, ver := range g.Versions {
			listed = append(listed, g.Name+"/"+ver.Version)
		}
	}
	if want := []string{"batch/v1", "m.example.com/v1"}; !slices.Equal(listed, want) {
		t.Errorf("discovery document lists %v, want %v", listed, want)
	}
}

// A deleted extension stays out of the peers' views for the grace, then may be a peer's
// again (a server that still serves a group of that name serves its own).
func TestExtensionsForgetAfterGrace(t *testing.T) {
	e := extensions{}
	start := time.Now()
	e.saw([]string{"w.crd.skewcheck.io/v1"}, start)
	e.saw(nil, start.Add(extensionGrace-time.Second))
	if !e.has("w.crd.skewcheck.io", "v1") {
		t.Fatal("forgotten within the grace")
	}
	e.saw(nil, start.Add(extensionGrace+time.Second))
	if e.has("w.crd.skewcheck.io", "v1") {
		t.Fatal("kept past the grace")
	}
}

// A sync that cannot list the extensions keeps what it knew (the grace still runs), and
// counts as a failed sync; the flawed proxy never asks.
func TestSyncStripsPeersAndFlawSkipsIt(t *testing.T) {
	for _, tc := range []struct {
		flaw  Flaw
		strip bool
	}{{NoFlaw, true}, {FlawProxyCustomResources, false}} {
		r := &registry{flaw: tc.flaw, ext: extensions{}, onSync: func(bool) {}}
		asked := false
		r.readExt = func(context.Context) ([]string, error) { asked = true; return []string{"w.crd.skewcheck.io/v1"}, nil }
		widgets := gvr("w.crd.skewcheck.io", "v1", "widgets")
		peers := map[string]view{"p": peerView(widgets)}
		r.stripExtensions(context.Background(), peers)
		if asked != tc.strip || peers["p"].served.Has(widgets.Key()) == tc.strip {
			t.Errorf("%q: asked %v, widgets still routed to the peer: %v", tc.flaw, asked, peers["p"].served.Has(widgets.Key()))
		}
	}
}
