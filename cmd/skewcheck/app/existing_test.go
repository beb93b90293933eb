package app

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
)

// The dry run's plan is what the selected tests declare: the profiles, then --focus and
// --skip, change it.
func TestExistingPlanFollowsTheSelection(t *testing.T) {
	fp := existing.Footprint{Run: "20260101-000000-abcde"}
	ns := "in namespace " + fp.Namespace()
	plan := func(opts framework.RunOptions) string {
		t.Helper()
		p, err := existingPlan(fp, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		p.Print(&out)
		return out.String()
	}
	for _, tc := range []struct {
		name      string
		opts      framework.RunOptions
		says, not []string
	}{
		{"mvp", framework.RunOptions{Profiles: []string{"mvp"}},
			[]string{"create, delete customresourcedefinitions.apiextensions.k8s.io, cluster-scoped, labelled skewcheck.io/run=20260101-000000-abcde (MVP-050)",
				"create, delete clusterroles.rbac.authorization.k8s.io, cluster-scoped, labelled", "create, delete clusterrolebindings.rbac.authorization.k8s.io, cluster-scoped, labelled",
				"objects of the skewed resources", "create pods/exec -n " + fp.Namespace(), "impersonate users", "MVP-022 (needs NodeControl)", "MVP-052 (needs AggregatedAPI)"},
			[]string{"apiservices", "in namespace default", "MVP-051 (A"}},
		{"ipmode, of which only the checks that write no ingress IP run", framework.RunOptions{Profiles: []string{"ipmode"}},
			[]string{"create, delete services, " + ns + " (IPM-003, IPM-006)", "patch services/status, " + ns + " (IPM-003, IPM-006)",
				"IPM-001 (needs InertIngressIP)", "IPM-005 (needs InertIngressIP)", "IPM-101 (needs Dataplane)"},
			[]string{"endpointslices.discovery.k8s.io", "in namespace default", "skewed resources"}},
		{"mvp focused on the CRD tests", framework.RunOptions{Profiles: []string{"mvp"}, Focus: `MVP-05[01]`},
			[]string{"customresourcedefinitions.apiextensions.k8s.io", "MVP-051 (needs NodeControl)"},
			[]string{"clusterroles", "skewed resources", "MVP-022"}},
		{"mvp without the CRD tests", framework.RunOptions{Profiles: []string{"mvp"}, Skip: `CRD`},
			[]string{"clusterroles.rbac.authorization.k8s.io"},
			[]string{"customresourcedefinitions"}},
		{"chaos, which never runs there", framework.RunOptions{Profiles: []string{"chaos"}},
			[]string{"nothing: no selected test that runs here writes", "CHAOS-007 (needs Registration)"},
			[]string{"kube-system (", "leases.coordination.k8s.io, in"}},
	} {
		got := plan(tc.opts)
		for _, s := range tc.says {
			if !strings.Contains(got, s) {
				t.Errorf("%s: the plan does not say %q:\n%s", tc.name, s, got)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(got, s) {
				t.Errorf("%s: the plan says %q:\n%s", tc.name, s, got)
			}
		}
	}
	if _, err := existingPlan(fp, framework.RunOptions{Profiles: []string{"mvp"}, Focus: "("}); err == nil {
		t.Error("a focus that is no regular expression planned a run")
	}
}
