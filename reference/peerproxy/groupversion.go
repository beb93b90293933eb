package peerproxy

import (
	"net/http"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// Legacy discovery (client-go without the aggregated Accept type, kubectl api-resources of
// older clients) reads /apis, then /apis/<group>/<version> for every group-version listed.
// Upstream serves both documents locally: a group-version only a peer serves is 404 there,
// and client-go fails with "unable to retrieve the complete list of server APIs". The
// reference answers them for the whole control plane, by the same rules as resources:
//   - a group-version the local apiserver lacks and live peers serve is forwarded to those
//     peers, marked, one after another (the document is the peer's own);
//   - a group-version both serve, where peers serve resources the local apiserver lacks
//     (a newer server adds a resource to an existing group-version), is the local document
//     with the peers' resources added, as merged /apis adds them;
//   - /apis lists every group-version the local apiserver or a peer serves (the
//     apiserver's own list can lack even its own: see groupVersions);
//   - everything else, and every request already marked, is the local apiserver's answer.
// The core group (/api) stays local, as in merged discovery: every server serves it.

// groupVersionPath reads /apis/<group>/<version> (a trailing slash allowed).
func groupVersionPath(path string) (group, version string, ok bool) {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(path, "/apis/"), "/"), "/")
	if !strings.HasPrefix(path, "/apis/") || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// legacyDiscovery says whether r asks for a legacy discovery document the proxy answers for
// the control plane: an unmarked GET of /apis asking for no aggregated type, or of
// /apis/<group>/<version>.
func legacyDiscovery(r *http.Request, marked bool) bool {
	if r.Method != http.MethodGet || marked {
		return false
	}
	if r.URL.Path == "/apis" || r.URL.Path == "/apis/" {
		// An aggregated answer of any version is the apiserver's (v2 is merged before this).
		return !strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList")
	}
	_, _, ok := groupVersionPath(r.URL.Path)
	return ok
}

// serveLegacyDiscovery answers /apis or /apis/<group>/<version> (see the top of this file).
func (p *Proxy) serveLegacyDiscovery(w http.ResponseWriter, r *http.Request, u *authn.User) {
	local := []string{p.cfg.APIServer}
	group, version, isGV := groupVersionPath(r.URL.Path)
	if !isGV {
		all := p.reg.groupVersions()
		p.forwardMerged(w, r, u, func(b []byte) ([]byte, error) { return addGroupVersions(b, all) })
		return
	}
	if !p.reg.localServesGroupVersion(group, version) {
		if peers := p.reg.peersServingGroupVersion(group, version); len(peers) > 0 {
			p.forward(w, r, u, peers, true)
			return
		}
		p.forward(w, r, u, local, false)
		return
	}
	extra := p.reg.peerOnlyResources(group, version)
	if len(extra) == 0 {
		p.forward(w, r, u, local, false)
		return
	}
	p.forwardMerged(w, r, u, func(b []byte) ([]byte, error) { return addResources(b, extra) })
}

// localServesGroupVersion reports whether the fronted apiserver serves any resource of group/version.
func (r *registry) localServesGroupVersion(group, version string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.local.served.HasGroupVersion(group, version)
}

// peersServingGroupVersion lists the apiserver URLs of live peers serving group/version, in a stable order.
func (r *registry) peersServingGroupVersion(group, version string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var urls []string
	for _, p := range r.peers {
		if p.served.HasGroupVersion(group, version) {
			urls = append(urls, p.url)
		}
	}
	sort.Strings(urls)
	return urls
}

// peerOnlyResources is what live peers serve in group/version that the local apiserver
// does not, as legacy discovery lists it: each resource, then each of its subresources as
// "<resource>/<subresource>". A resource several peers serve is taken from the first by
// lease name, so the answer is stable.
func (r *registry) peerOnlyResources(group, version string) []metav1.APIResource {
	local, peers := r.views()
	have := map[string]bool{}
	for _, res := range groupVersionResources(local.apis, group, version) {
		have[res.Resource] = true
	}
	var out []metav1.APIResource
	for _, p := range peers {
		for _, res := range groupVersionResources(p.apis, group, version) {
			if have[res.Resource] {
				continue
			}
			have[res.Resource] = true
			out = append(out, legacyResources(group, version, res)...)
		}
	}
	return out
}

// groupVersions lists every group-version the local apiserver or a live peer serves, by
// group (local groups first), each group's preferred version the first its first server
// lists (aggregated discovery orders versions by preference). The apiserver's legacy /apis
// lists APIService objects, which live in the shared etcd and which each apiserver prunes
// to its own group-versions when it starts: the last to start decides, so a group-version
// the local apiserver itself serves can be missing from its own list. The views are what
// the servers really serve.
func (r *registry) groupVersions() []metav1.APIGroup {
	local, peers := r.views()
	var out []metav1.APIGroup
	index := map[string]int{}
	for _, v := range append([]view{local}, peers...) {
		if v.apis == nil {
			continue
		}
		for _, g := range v.apis.Items {
			for _, ver := range g.Versions {
				gv := metav1.GroupVersionForDiscovery{GroupVersion: g.Name + "/" + ver.Version, Version: ver.Version}
				i, ok := index[g.Name]
				if !ok {
					index[g.Name], i = len(out), len(out)
					out = append(out, metav1.APIGroup{Name: g.Name, PreferredVersion: gv})
				}
				if !hasVersion(out[i].Versions, ver.Version) {
					out[i].Versions = append(out[i].Versions, gv)
				}
			}
		}
	}
	return out
}

func hasVersion(vs []metav1.GroupVersionForDiscovery, version string) bool {
	for _, v := range vs {
		if v.Version == version {
			return true
		}
	}
	return false
}

// groupVersionResources is the resources of group/version in an aggregated document.
func groupVersionResources(list *apidiscoveryv2.APIGroupDiscoveryList, group, version string) []apidiscoveryv2.APIResourceDiscovery {
	if list == nil {
		return nil
	}
	for _, g := range list.Items {
		if g.Name != group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version == version {
				return v.Resources
			}
		}
	}
	return nil
}

// legacyResources turns one resource of an aggregated document into its entries in a
// legacy APIResourceList: the resource, then "<resource>/<subresource>" for each of its
// subresources (legacy discovery has no other way to list them). A subresource names its
// kind's group and version only when they are not the resource's own, as upstream does.
func legacyResources(group, version string, res apidiscoveryv2.APIResourceDiscovery) []metav1.APIResource {
	namespaced := res.Scope == apidiscoveryv2.ScopeNamespace
	entry := metav1.APIResource{Name: res.Resource, SingularName: res.SingularResource, Namespaced: namespaced,
		Verbs: metav1.Verbs(res.Verbs), ShortNames: res.ShortNames, Categories: res.Categories}
	if res.ResponseKind != nil {
		entry.Kind = res.ResponseKind.Kind
	}
	out := []metav1.APIResource{entry}
	for _, sub := range res.Subresources {
		s := metav1.APIResource{Name: res.Resource + "/" + sub.Subresource, Namespaced: namespaced, Verbs: metav1.Verbs(sub.Verbs)}
		if k := sub.ResponseKind; k != nil {
			s.Kind = k.Kind
			if k.Group != group || k.Version != version {
				s.Group, s.Version = k.Group, k.Version
			}
		}
		out = append(out, s)
	}
	return out
}
