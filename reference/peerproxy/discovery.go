package peerproxy

import (
	"encoding/json"
	"net/http"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

func isAggregatedV2(r *http.Request) bool {
	a := r.Header.Get("Accept")
	first, _, _ := strings.Cut(a, ",")
	return strings.Contains(first, "as=APIGroupDiscoveryList") && strings.Contains(first, "v=v2") && !strings.Contains(first, "v=v2beta1")
}

func noPeer(r *http.Request) bool { return strings.Contains(r.Header.Get("Accept"), "profile=nopeer") }

// serveDiscovery answers /apis (aggregated v2) from the proxy's own views: with merged,
// the union of what the local apiserver and every live peer serve (a peer whose lease is
// live keeps its last known document: it serves those resources again once it answers);
// without (profile=nopeer), the local apiserver's own view. The local view is read with
// the nopeer profile, so it is local whether the apiserver merges itself (1.35+ with the
// proxy on), ignores the profile, or predates it.
func (p *Proxy) serveDiscovery(w http.ResponseWriter, merged bool) {
	local, peers := p.reg.discoveryViews()
	lists := []*apidiscoveryv2.APIGroupDiscoveryList{local.apis}
	for _, v := range peers {
		if merged && p.cfg.Flaw.mergesPeers() {
			lists = append(lists, v.apis)
		}
	}
	b, err := json.Marshal(mergeDiscovery(lists...))
	if err != nil {
		p.fail(w, http.StatusInternalServerError, "InternalError", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	w.Header().Set("Vary", "Accept")
	w.Write(b)
}

// mergeDiscovery unions groups, versions and resources. The first list (the local one)
// decides the order, so the local preferred versions stay first; what only peers serve is
// appended in their order.
func mergeDiscovery(lists ...*apidiscoveryv2.APIGroupDiscoveryList) *apidiscoveryv2.APIGroupDiscoveryList {
	out := &apidiscoveryv2.APIGroupDiscoveryList{}
	out.Kind, out.APIVersion = "APIGroupDiscoveryList", "apidiscovery.k8s.io/v2"
	index := map[string]int{} // group name -> position in out.Items
	for _, list := range lists {
		if list == nil {
			continue
		}
		for _, g := range list.Items {
			i, ok := index[g.Name]
			if !ok {
				index[g.Name] = len(out.Items)
				out.Items = append(out.Items, *g.DeepCopy())
				continue
			}
			mergeVersions(&out.Items[i], g)
		}
	}
	return out
}

func mergeVersions(into *apidiscoveryv2.APIGroupDiscovery, from apidiscoveryv2.APIGroupDiscovery) {
	for _, v := range from.Versions {
		found := false
		for i := range into.Versions {
			if into.Versions[i].Version != v.Version {
				continue
			}
			found = true
			have := map[string]bool{}
			for _, r := range into.Versions[i].Resources {
				have[r.Resource] = true
			}
			for _, r := range v.Resources {
				if !have[r.Resource] {
					into.Versions[i].Resources = append(into.Versions[i].Resources, *r.DeepCopy())
				}
			}
		}
		if !found {
			into.Versions = append(into.Versions, *v.DeepCopy())
		}
	}
}
