package proxystate

import (
	"context"
	"fmt"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
	"github.com/skewcheck/skewcheck/framework/report"
)

// readDiscovery compares what e's aggregated discovery lists when asked as clients ask
// (/api and /apis, v2 without a profile) with what the server serves itself (Served, its
// nopeer view). Upstream merges its peers' resources into /apis only when it built its peer
// proxy (k8s.io/kube-aggregator v0.36.3 pkg/apiserver/apiserver.go:283, `&& c.ExtraConfig.PeerProxy
// != nil`; k8s.io/apiserver v0.36.3 pkg/endpoints/discovery/aggregated/wrapper.go:46-56), from
// 1.35, and drops the peers' core group; so only peers' GVRs outside the core group can
// show a merge.
func readDiscovery(ctx context.Context, e *framework.Endpoint, peerOnly discovery.Set) report.Finding {
	beyond := discovery.Set{}
	for k, g := range peerOnly {
		if g.Group != "" {
			beyond[k] = g
		}
	}
	if len(beyond) == 0 {
		return report.Finding{State: report.CannotTell, Evidence: "the peers serve no GVR under /apis that it lacks"}
	}
	listed := discovery.Set{}
	for _, path := range []string{"/api", "/apis"} {
		list, err := fetch(ctx, e, path)
		if err != nil {
			return report.Finding{State: report.CannotTell, Evidence: err.Error()}
		}
		for k, g := range discovery.FromList(list) {
			listed[k] = g
		}
	}
	if merged := e.Served.Missing(listed); len(merged) > 0 {
		return report.Finding{State: report.DiscoveryMerged,
			Evidence: fmt.Sprintf("/api and /apis list %d GVRs it does not serve itself (%s)", len(merged), few(keys(merged)))}
	}
	said := fmt.Sprintf("/api and /apis list what it serves itself (its nopeer view), while peers serve %s", few(keys(beyond)))
	if framework.CompareMinor(e.Version, "1.35") < 0 {
		said += " (before 1.35 upstream never merges them)"
	}
	return report.Finding{State: report.DiscoveryLocal, Evidence: said}
}

// fetch is one aggregated discovery document, bounded by RequestTimeout.
func fetch(ctx context.Context, e *framework.Endpoint, path string) (*apidiscoveryv2.APIGroupDiscoveryList, error) {
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	return discovery.Fetch(ctx, e.Admin, path, discovery.AggregatedV2)
}

// keys are the set's GVRs, sorted.
func keys(s discovery.Set) []string {
	var out []string
	for _, g := range s.Sorted() {
		out = append(out, g.Key())
	}
	return out
}

// few names up to four of items and how many more there are, for one line.
func few(items []string) string {
	if len(items) <= 4 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:4], ", "), len(items)-4)
}
