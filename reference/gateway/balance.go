package gateway

import (
	"fmt"
	"strings"
)

// candidates are the servers a request may go to, in the order to try them: the first is
// the round-robin pick, the others are for retrying an idempotent request.
//
// Among the policy's healthy servers, a request for a resource goes only to those whose
// own discovery lists its group/version/resource, and a request for a group-version's
// discovery (/apis/<g>/<v>) only to those serving that group-version: during an upgrade
// the servers of one cluster serve different APIs, and a server that does not serve a
// resource answers 404 for it, which is wrong while another serves it. When none of the
// healthy servers serves it, any of them may answer, and its 404 is then the truth.
//
// An empty result means no server of the policy is healthy; why says what is known.
func (p *policy) candidates(info requestInfo) (out []*upstream, why string) {
	var healthy []*upstream
	for _, u := range p.subset {
		if u.healthy.Load() || p.ignoreHealth { // the KeepKilledUpstream defect: GW-050 must catch it
			healthy = append(healthy, u)
		}
	}
	if len(healthy) == 0 {
		return nil, p.unhealthyReason()
	}
	capable := healthy
	if filter := servesFilter(info); filter != nil && !p.ignoreDiscovery {
		var serving []*upstream
		for _, u := range healthy {
			if ok, known := filter(u); ok && known {
				serving = append(serving, u)
			}
		}
		if len(serving) > 0 {
			capable = serving
		}
	}
	start := int((p.next.Add(1) - 1) % uint64(len(capable)))
	if p.firstServerOnly { // the defect: GW-022 must catch it
		start = 0
	}
	if p.ignoreHealth {
		return capable[start : start+1], "" // no retry list: the dead server's share fails
	}
	out = make([]*upstream, 0, len(capable))
	out = append(out, capable[start:]...)
	return append(out, capable[:start]...), ""
}

// servesFilter is how to tell whether an upstream can answer the request, or nil when any
// can (non-resource paths other than group-version discovery).
func servesFilter(info requestInfo) func(*upstream) (bool, bool) {
	if info.IsResourceRequest {
		if info.Resource == "" {
			return nil
		}
		key := info.key()
		return func(u *upstream) (bool, bool) { return u.serves(key) }
	}
	if g, v, ok := groupVersionPath(info.Path); ok {
		return func(u *upstream) (bool, bool) { return u.servesGroupVersion(g, v) }
	}
	return nil
}

// groupVersionPath recognises /api/<v> and /apis/<g>/<v>.
func groupVersionPath(path string) (group, version string, ok bool) {
	parts := splitPath(path)
	switch {
	case len(parts) == 2 && parts[0] == "api":
		return "", parts[1], true
	case len(parts) == 3 && parts[0] == "apis":
		return parts[1], parts[2], true
	}
	return "", "", false
}

func (p *policy) unhealthyReason() string {
	if len(p.subset) == 0 {
		return "its upstreamSubset has no enabled server"
	}
	var parts []string
	for _, u := range p.subset {
		st := u.status()
		switch {
		case !st.Checked:
			parts = append(parts, u.endpoint+": not checked yet")
		case st.LastError != "":
			parts = append(parts, fmt.Sprintf("%s: %s", u.endpoint, st.LastError))
		default:
			parts = append(parts, u.endpoint+": unhealthy")
		}
	}
	return "no server of its upstreamSubset is healthy (" + strings.Join(parts, "; ") + ")"
}
