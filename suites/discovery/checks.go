package discovery

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// merged reads an endpoint's /apis as a client without the nopeer profile sees it.
func merged(ctx context.Context, e *framework.Endpoint) disc.Set {
	list, err := disc.Fetch(ctx, e.Admin, "/apis", disc.AggregatedV2)
	Expect(err).NotTo(HaveOccurred(), "merged /apis of %s", e.Name)
	return disc.FromList(list)
}

// groupsOnly drops the core group, which lives at /api and is never merged.
func groupsOnly(s disc.Set) disc.Set {
	out := disc.Set{}
	for k, g := range s {
		if g.Group != "" {
			out[k] = g
		}
	}
	return out
}

// servedBy names each skewed GVR outside the core group with the servers that serve it.
func servedBy(t *framework.Target) string {
	seen := map[string]bool{}
	var out []string
	for _, r := range framework.SkewedGVRs(t) {
		if r.GVR.Group == "" || seen[r.GVR.Key()] {
			continue
		}
		seen[r.GVR.Key()] = true
		out = append(out, r.GVR.Key()+" served by "+framework.EndpointNames(r.ServedBy(t)))
	}
	if len(out) == 0 {
		return "every skewed GVR is in the core group, which is never merged"
	}
	return strings.Join(out, "; ")
}

func keys(s disc.Set) []string {
	out := []string{}
	for _, g := range s.Sorted() {
		out = append(out, g.Key())
	}
	return out
}

func mergedListsUnion(ctx context.Context, env *framework.Env) {
	var all []disc.Set
	for _, e := range env.Target.Endpoints {
		all = append(all, groupsOnly(e.Served))
	}
	union := disc.Union(all...)
	for _, e := range env.Target.Endpoints {
		Eventually(func() []string { return keys(merged(ctx, e).Missing(union)) }).WithTimeout(env.Timeouts.Converge).
			Should(BeEmpty(), "GVRs some server serves that %s's merged /apis does not list", e.Name)
	}
}

// noPeerIsLocal: what profile=nopeer lists, the server answers itself (a request marked as
// already proxied is served only locally, so no 404), and everything the server answers in
// its own group-version documents is listed. Equality with the legacy group list is not
// asserted: APIService objects live in the shared etcd and each server's registration
// controller rewrites them, so that list briefly differs between servers in a mixed cluster.
func noPeerIsLocal(ctx context.Context, env *framework.Env) {
	marked := map[string][]string{"x-kubernetes-peer-proxied": {"true"}}
	for _, e := range env.Target.Endpoints {
		list, err := disc.Fetch(ctx, e.Admin, "/apis", disc.AggregatedV2NoPeer)
		Expect(err).NotTo(HaveOccurred())
		local := disc.FromList(list)
		// What e does not serve itself, checked by asking it (a marked request is served
		// locally), not by the nopeer view the skew was computed from: nopeer must not list it.
		for _, r := range framework.SkewedGVRs(env.Target) {
			if r.Entry == e && r.GVR.Can("list") {
				resp := e.Do(ctx, framework.Request{Path: r.GVR.Path() + "?limit=1", Header: marked})
				Expect(resp.Status).To(Equal(404), "%s serves %s itself (asked with the request marked proxied), though its nopeer view lacks it: %s", e.Name, r.GVR.Key(), resp)
				Expect(local.Has(r.GVR.Key())).To(BeFalse(), "%s's nopeer /apis lists %s, which it does not serve itself", e.Name, r.GVR.Key())
			}
		}
		for _, g := range local.Sorted() {
			if g.Can("list") {
				resp := e.Do(ctx, framework.Request{Path: g.Path() + "?limit=1", Header: marked})
				Expect(resp.Status).NotTo(Equal(404), "%s's nopeer /apis lists %s, but %s does not serve it itself: %s", e.Name, g.Key(), e.Name, resp)
			}
		}
		for _, k := range keys(legacyGroups(ctx, e)) {
			Expect(local.Has(k)).To(BeTrue(), "%s answers %s in its own group-version document, but its nopeer /apis does not list it", e.Name, k)
		}
	}
}

// legacyNotMerged: /api is the server's own core group, and the group-version documents
// a server answers when asked as a peer asks (marked already proxied) are its own. A proxy
// that answers legacy discovery for the control plane (DISC-005) builds on exactly these:
// were they merged or forwarded again, it could not tell whose resources are whose.
func legacyNotMerged(ctx context.Context, env *framework.Env) {
	// Read once per entry: an entry has a route per GVR it lacks, and with three servers or
	// more it has more of them, each reading would be some twenty requests again.
	legacy := map[*framework.Endpoint]disc.Set{}
	for _, r := range framework.SkewedGVRs(env.Target) {
		if legacy[r.Entry] == nil {
			legacy[r.Entry] = legacyGroups(ctx, r.Entry)
		}
		// With three servers or more, more than one peer may serve the GVR: name them all.
		Expect(legacy[r.Entry].Has(r.GVR.Key())).To(BeFalse(), "%s's own legacy discovery (asked as already proxied) lists %s, which only %s serve(s)",
			r.Entry.Name, r.GVR.Key(), framework.EndpointNames(r.ServedBy(env.Target)))
	}
	for _, e := range env.Target.Endpoints {
		list, err := disc.Fetch(ctx, e.Admin, "/api", disc.AggregatedV2)
		Expect(err).NotTo(HaveOccurred())
		core := disc.FromList(list)
		for k := range e.Served {
			if e.Served[k].Group == "" {
				Expect(core.Has(k)).To(BeTrue())
			}
		}
		Expect(len(core)).To(Equal(len(e.Served)-len(groupsOnly(e.Served))), "%s's /api is not its own core group", e.Name)
	}
}

// legacyGroups is the server's own view through legacy discovery, every request marked
// already proxied: each group-version listed in /apis (APIGroupList) whose
// /apis/<g>/<v> (APIResourceList) the server answers, without subresources. A listed
// group-version may answer 404: APIService objects live in the shared etcd, so a peer's
// registration appears in this server's group list although this server has no handler
// for it. That is shared storage, not peer merging.
func legacyGroups(ctx context.Context, e *framework.Endpoint) disc.Set {
	resp := e.Do(ctx, framework.Request{Path: "/apis", Header: map[string][]string{"Accept": {"application/json"}, framework.PeerProxiedHeader: {"true"}}})
	Expect(resp).To(framework.HaveStatus(200))
	var groups struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		} `json:"groups"`
	}
	Expect(json.Unmarshal(resp.Body, &groups)).To(Succeed())
	out := disc.Set{}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			status, resources, err := e.GroupVersionResources(ctx, g.Name, v.Version, true)
			Expect(err).NotTo(HaveOccurred())
			if status == 404 {
				continue
			}
			Expect(status).To(Equal(200), "%s: /apis/%s/%s", e.Name, g.Name, v.Version)
			for _, res := range resources {
				gvr := disc.GVR{Group: g.Name, Version: v.Version, Resource: res}
				out[gvr.Key()] = gvr
			}
		}
	}
	return out
}

func leaverDisappears(ctx context.Context, env *framework.Env) {
	// Only what no other server serves must leave: with three servers or more, a GVR
	// another peer also serves rightly stays merged when one of them stops.
	var routes []framework.Route
	for _, rr := range framework.SkewedGVRs(env.Target) {
		if rr.GVR.Group != "" && len(rr.ServedBy(env.Target)) == 1 {
			routes = append(routes, rr)
		}
	}
	if len(routes) == 0 {
		// Not a failure of the target: with three servers or more, every GVR some server
		// lacks may be served by two others (1.35.4 + 1.36.3 + 1.36.3: the 1.36 resources by
		// both 1.36 servers), and then no single server's leaving takes anything out of the
		// merged view. Stopping every server of a GVR would leave the entry without peers,
		// which is lastPeerStaysMerged's case, not this test's.
		framework.SkipMissing(framework.FeatureSkew, "no non-core GVR is served by exactly one endpoint, so no single server's leaving takes a GVR out of the merged view ("+
			servedBy(env.Target)+")")
	}
	r := routes[0]
	only := disc.Set{}
	for _, rr := range routes {
		if rr.Entry == r.Entry && rr.Peer == r.Peer {
			only[rr.GVR.Key()] = rr.GVR
		}
	}
	// First the merged view must list them, or their absence later would prove nothing.
	before := merged(ctx, r.Entry)
	for k := range only {
		Expect(before.Has(k)).To(BeTrue(), "%s's merged /apis does not list %s, which %s serves, even before it stops", r.Entry.Name, k, r.Peer.Name)
	}
	env.RestartWhenDone(r.Peer)
	Expect(r.Peer.Node.Stop(30 * time.Second)).To(Succeed())
	stopped := time.Now()
	// Watched outside the deviation's region, so that a failure to read the merged view
	// fails as itself: the region asserts only on what stayed listed.
	var still []string
	deadline := stopped.Add(env.Timeouts.DiscoveryLeave)
	for {
		m := merged(ctx, r.Entry)
		still = still[:0]
		for k := range only {
			if m.Has(k) {
				still = append(still, k)
			}
		}
		if len(still) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(still) == 0 {
		env.Measure("leaveSeconds", time.Since(stopped).Seconds())
	}
	sort.Strings(still)
	// The leaver was the entry's last peer when two endpoints made the target: only then
	// may upstream's lastPeerStaysMerged show.
	obs := framework.Observation{At: r.Entry, Figures: map[string]float64{
		"stillListed": float64(len(still)), "leaverOnly": float64(len(only)), "peersLeft": float64(len(env.Target.Endpoints) - 2)}}
	env.Deviation(obs, func() {
		Expect(still).To(BeEmpty(), "%s stopped %v ago, yet %s's merged /apis still lists what only it served", r.Peer.Name, env.Timeouts.DiscoveryLeave, r.Entry.Name)
	})
}
