package discovery

import (
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sdiscovery "k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	disc "github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// clientGoView is what client-go's own discovery client retrieved through one endpoint:
// the client kubectl, controllers and older tools use, not a request of skewcheck's.
type clientGoView struct {
	listed map[string]bool  // GVR keys (disc.GVR.Key), subresources left out
	groups map[string]bool  // group-versions the group lists named ("batch/v1", "v1")
	failed map[string]error // group-versions the client could not retrieve ("batch/v1", "v1")
	other  error            // any error that is not a list of failed group-versions
}

// readThroughClientGo runs ServerGroupsAndResources and ServerPreferredResources through
// cfg. legacy is the client asking without the aggregated Accept types (UseLegacyDiscovery,
// as clients before aggregated discovery, and kubectl's --legacy paths, do): /apis, then
// /apis/<group>/<version> for each group-version listed.
func readThroughClientGo(cfg *rest.Config, legacy bool) clientGoView {
	v := clientGoView{listed: map[string]bool{}, groups: map[string]bool{}, failed: map[string]error{}}
	dc, err := k8sdiscovery.NewDiscoveryClientForConfig(rest.CopyConfig(cfg))
	if err != nil {
		v.other = err
		return v
	}
	dc.UseLegacyDiscovery = legacy
	groups, lists, err := dc.ServerGroupsAndResources()
	v.note(err)
	for _, g := range groups {
		for _, gv := range g.Versions {
			v.groups[gv.GroupVersion] = true
		}
	}
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			v.note(fmt.Errorf("client-go returned a resource list of group-version %q: %w", l.GroupVersion, perr))
			continue
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") {
				v.listed[disc.GVR{Group: gv.Group, Version: gv.Version, Resource: r.Name}.Key()] = true
			}
		}
	}
	_, err = k8sdiscovery.ServerPreferredResources(dc)
	v.note(err)
	return v
}

// note sorts an error of client-go into failed group-versions or another error.
func (v *clientGoView) note(err error) {
	if err == nil {
		return
	}
	groups, ok := k8sdiscovery.GroupDiscoveryFailedErrorGroups(err)
	if !ok {
		if v.other == nil {
			v.other = err
		}
		return
	}
	for gv, e := range groups {
		v.failed[gv.String()] = e
	}
}

// missing is what of want the client did not list, sorted.
func (v clientGoView) missing(want disc.Set) []string {
	var out []string
	for k := range want {
		if !v.listed[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// failure says what went wrong, "" when the client retrieved everything in want.
func (v clientGoView) failure(want disc.Set) string {
	var parts []string
	if v.other != nil {
		parts = append(parts, "error: "+v.other.Error())
	}
	if len(v.failed) > 0 {
		parts = append(parts, (&k8sdiscovery.ErrGroupDiscoveryFailed{Groups: v.failedGroups()}).Error())
	}
	if m := v.missing(want); len(m) > 0 {
		parts = append(parts, fmt.Sprintf("%d GVRs some server serves not listed: %s", len(m), strings.Join(m, ", ")))
	}
	return strings.Join(parts, "; ")
}

func (v clientGoView) failedGroups() map[schema.GroupVersion]error {
	out := map[schema.GroupVersion]error{}
	for k, e := range v.failed {
		gv, _ := schema.ParseGroupVersion(k)
		out[gv] = e
	}
	return out
}

// observe is the view as the legacyDiscoveryIncomplete deviation judges it, at entry e:
// how many group-versions failed, and how many of those the entry does not serve while a
// peer does and were answered 404 (a document only a peer has, served locally); how many
// GVRs were not listed, how many of those the entry does not serve itself, and how many
// it does serve but in a group-version its group list left out.
func (v clientGoView) observe(e *framework.Endpoint, union disc.Set, legacy bool) framework.Observation {
	f := map[string]float64{"failed": float64(len(v.failed)), "failedPeerOnly": 0, "missingPeerOnly": 0, "missingUnlisted": 0, "otherErrors": 0, "legacy": 0}
	if v.other != nil {
		f["otherErrors"] = 1
	}
	if legacy {
		f["legacy"] = 1
	}
	for k, err := range v.failed {
		gv, _ := schema.ParseGroupVersion(k)
		if !e.Served.HasGroupVersion(gv.Group, gv.Version) && union.HasGroupVersion(gv.Group, gv.Version) && apierrors.IsNotFound(err) {
			f["failedPeerOnly"]++
		}
	}
	m := v.missing(union)
	f["missing"] = float64(len(m))
	for _, k := range m {
		switch g := union[k]; {
		case !e.Served.Has(k):
			f["missingPeerOnly"]++
		case !v.groups[g.GroupVersion()]:
			f["missingUnlisted"]++
		}
	}
	return framework.Observation{At: e, Figures: f}
}
