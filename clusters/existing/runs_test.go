package existing

import (
	"testing"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// A killed run leaves what its tests made, and `skewcheck cleanup` (FindRuns) finds that by
// the run's label only in the kinds it lists: every cluster-scoped write of a test that may
// run on a cluster skewcheck does not own is of one of those kinds (labelledResources), or
// is of the skewed resources, which it lists as the cluster's discovery names them
// (ClusterScopedFixtures). A test writing a labelled kind of its own would leave it behind.
func TestCleanupFindsWhatEveryTestLabels(t *testing.T) {
	listed := map[string]bool{}
	for _, gvr := range labelledResources {
		name := gvr.Resource
		if gvr.Group != "" {
			name += "." + gvr.Group
		}
		listed[name] = true
	}
	for _, tc := range suites.All() {
		if len(tc.NeverOnUnowned()) > 0 {
			continue
		}
		for _, w := range tc.Makes {
			if w.Scope != framework.ClusterLabelled && w.Scope != framework.RunNamespaceOrClusterLabelled {
				continue
			}
			if w.Resource != framework.SkewedResources && !listed[w.Resource] {
				t.Errorf("%s writes %s %s, which a cleanup after a killed run never lists: add its resource to labelledResources (clusters/existing/runs.go)",
					tc.ID, w.Resource, w.Scope)
			}
		}
	}
}
