package main

import (
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// TestPlanReadBackFromDryRun: the kind test holds audited writes to the plan as --dry-run
// prints it, so reading that plan back must keep every write it lists and refuse what it
// does not, and a delete of a planned kind only of an object the run created.
func TestPlanReadBackFromDryRun(t *testing.T) {
	tests, err := framework.Select(suites.All(), []string{"mvp", "discovery"})
	if err != nil {
		t.Fatal(err)
	}
	fp := existing.NewFootprint(time.Now())
	var out strings.Builder
	existing.NewPlan(fp, tests).Print(&out)
	ns, planned := parsePlan(t, out.String())
	if ns != fp.Namespace() {
		t.Errorf("the plan's namespace read back as %q, want %q", ns, fp.Namespace())
	}
	audited := []auditedWrite{
		{Verb: "create", Resource: "namespaces", Namespace: "skewcheck-other", Name: "skewcheck-other"},
		{Verb: "create", Resource: "serviceaccounts/token", Namespace: "skewcheck-other", Name: "skewcheck-user"},
		{Verb: "create", Resource: "customresourcedefinitions.apiextensions.k8s.io", Name: "widgets.skewcheck.io"},
		{Verb: "delete", Resource: "customresourcedefinitions.apiextensions.k8s.io", Name: "widgets.skewcheck.io"},
		{Verb: "create", Resource: "configmaps", Namespace: "skewcheck-other", Name: "c"},
		{Verb: "create", Resource: "widgets.mvp-384459123.crd.skewcheck.io", Namespace: "skewcheck-other", Name: "w-1"},
		{Verb: "create", Resource: "selfsubjectreviews.authentication.k8s.io"},
		{Verb: "create", Resource: "clusterroles.rbac.authorization.k8s.io", Name: "skewcheck-read-1"},
		{Verb: "delete", Resource: "clusterroles.rbac.authorization.k8s.io", Name: "skewcheck-read-1"},
		{Verb: "delete", Resource: "namespaces", Namespace: "skewcheck-other", Name: "skewcheck-other"},
	}
	if bad := unplannedWrites(audited, planned); len(bad) > 0 {
		t.Errorf("writes the plan lists were refused: %s\nthe plan:\n%s", strings.Join(bad, "\n"), out.String())
	}
	outside := []auditedWrite{
		{Verb: "create", Resource: "configmaps", Namespace: "default", Name: "c"},
		{Verb: "update", Resource: "leases.coordination.k8s.io", Namespace: "kube-system", Name: "apiserver-x"},
		{Verb: "create", Resource: "nodes", Name: "n"},
		{Verb: "create", Resource: "widgets.crd.skewcheck.io", Namespace: "skewcheck-other", Name: "w-1"},
		{Verb: "update", Resource: "widgets.mvp-1.crd.skewcheck.io", Namespace: "skewcheck-other", Name: "w-1"},
		// Of a planned kind, but not made by the run: a role someone had, a CRD of a name taken.
		{Verb: "delete", Resource: "clusterroles.rbac.authorization.k8s.io", Name: "admin-reader"},
		{Verb: "delete", Resource: "customresourcedefinitions.apiextensions.k8s.io", Name: "gadgets.example.com"},
	}
	if bad := unplannedWrites(outside, planned); len(bad) != len(outside) {
		t.Errorf("of %d writes outside the plan, %d were refused: %s", len(outside), len(bad), strings.Join(bad, "\n"))
	}
}
