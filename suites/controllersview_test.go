package suites_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// gcSync is a garbage collector's sync line (kube-controller-manager at -v=2,
// garbagecollector.go: "syncing garbage collector with updated resources from discovery"):
// the resources its discovery added to and removed from what it monitors.
var (
	gcSync      = regexp.MustCompile(`syncing garbage collector with updated resources from discovery" diff="added: \[(.*)\], removed: \[(.*)\]"`)
	gcResource  = regexp.MustCompile(`([a-z0-9.-]*)/(v[a-z0-9]+), Resource=([a-z0-9]+)`)
	gcNoMapping = "unable to get REST mapping"
)

// collectorView is what the garbage collector's discovery listed last, from its own log:
// GVR keys (framework's "group/version/resource", "core" for the core group).
func collectorView(log string) map[string]bool {
	view := map[string]bool{}
	for _, m := range gcSync.FindAllStringSubmatch(log, -1) {
		for i, set := range []bool{true, false} {
			for _, r := range gcResource.FindAllStringSubmatch(m[i+1], -1) {
				group := r[1]
				if group == "" {
					group = "core"
				}
				view[group+"/"+r[2]+"/"+r[3]] = set
			}
		}
	}
	return view
}

// missingFromView are the skewed resources the collector could monitor (delete, list and
// watch) that its discovery did not list: the resources whose owners it cannot see.
func missingFromView(target *framework.Target, log string) []string {
	view := collectorView(log)
	var out []string
	for _, r := range framework.SkewedGVRs(target) {
		g := r.GVR
		if g.Can("delete") && g.Can("list") && g.Can("watch") && !view[g.Key()] && !slices.Contains(out, g.Key()) {
			out = append(out, g.Key())
		}
	}
	slices.Sort(out)
	return out
}

// noMappings counts the collector's failures to map an owner reference through its
// discovery (it retries them and deletes nothing).
func noMappings(log string) int { return strings.Count(log, gcNoMapping) }

// TestCollectorView reads the collector's sync lines as kube-controller-manager v1.35.4
// writes them: the core group is empty, and what a later sync removes is gone.
func TestCollectorView(t *testing.T) {
	log := `I1202 12:37:42.821996 17564 garbagecollector.go:218] "syncing garbage collector with updated resources from discovery" diff="added: [/v1, Resource=configmaps batch/v1, Resource=jobs admissionregistration.k8s.io/v1, Resource=mutatingadmissionpolicies], removed: []"
I1202 12:38:12.821996 17564 garbagecollector.go:218] "syncing garbage collector with updated resources from discovery" diff="added: [], removed: [batch/v1, Resource=jobs]"`
	view := collectorView(log)
	for key, want := range map[string]bool{"core/v1/configmaps": true, "admissionregistration.k8s.io/v1/mutatingadmissionpolicies": true, "batch/v1/jobs": false} {
		if view[key] != want {
			t.Errorf("%s in the collector's view: %v, want %v (view %v)", key, view[key], want, view)
		}
	}
}
