package existing

import (
	"slices"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// A plan groups the tests' writes by resource and scope, leaves out the tests that never
// run on a cluster skewcheck does not own (naming them and why), and says it all in the
// run's names.
func TestPlanGroupsTheWritesOfTheTestsThatRunThere(t *testing.T) {
	crd := framework.Write{Resource: "customresourcedefinitions.apiextensions.k8s.io", Verbs: []string{"create"}, Scope: framework.ClusterLabelled, Why: "a CRD"}
	crdGone := framework.Write{Resource: crd.Resource, Verbs: []string{"create", "delete"}, Scope: framework.ClusterLabelled, Why: "a CRD"}
	skewed := framework.Write{Resource: framework.SkewedResources, Verbs: []string{"create"}, Scope: framework.RunNamespaceOrClusterLabelled, Why: "an object"}
	lease := framework.Write{Resource: "leases.coordination.k8s.io", Verbs: []string{"delete"}, Scope: framework.InNamespace("kube-system"), Why: "a lease"}
	fp := Footprint{Run: "20260101-000000-abcde"}
	p := NewPlan(fp, []framework.Test{
		{ID: "A-1", Makes: []framework.Write{crd, skewed}},
		{ID: "A-2", Makes: []framework.Write{crdGone}},
		{ID: "A-3", Features: []framework.Feature{framework.FeatureRegistration}, Makes: []framework.Write{lease}},
		{ID: "A-4", Makes: framework.NoWrites},
	})
	if len(p.Writes) != 2 {
		t.Fatalf("writes %+v, want the CRDs and the skewed objects", p.Writes)
	}
	if w := p.Writes[0]; w.Resource != crd.Resource || !slices.Equal(w.Verbs, []string{"create", "delete"}) || !slices.Equal(w.Tests, []string{"A-1", "A-2"}) || !slices.Equal(w.Why, []string{"a CRD"}) {
		t.Errorf("the CRDs' write is %+v, want create and delete by A-1 and A-2, said once", w)
	}
	if !slices.Equal(p.NotRun, []string{"A-3 (needs Registration)"}) {
		t.Errorf("not run: %v, want A-3 and the feature it needs", p.NotRun)
	}
	var out strings.Builder
	p.Print(&out)
	for _, want := range []string{
		"namespace skewcheck-20260101-000000-abcde (label skewcheck.io/run=20260101-000000-abcde)",
		"serviceaccount skewcheck-unprivileged -n skewcheck-20260101-000000-abcde",
		"create, delete customresourcedefinitions.apiextensions.k8s.io, cluster-scoped, labelled skewcheck.io/run=20260101-000000-abcde (A-1, A-2): a CRD",
		"configmaps, ", "jobs.batch", "in namespace skewcheck-20260101-000000-abcde when namespaced, else cluster-scoped and labelled",
		"create, delete namespaces", "create objects of the skewed resources -n skewcheck-20260101-000000-abcde, and cluster-wide for the cluster-scoped ones",
		"A-3 (needs Registration)",
		"configmap kubeadm-config -n kube-system", // the proxy's state reads it before any test
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the plan does not say %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "kube-system (") || strings.Contains(out.String(), "a lease") {
		t.Errorf("the plan lists the write of A-3, which never runs there:\n%s", out.String())
	}
}

func TestKubectlName(t *testing.T) {
	for key, want := range map[string]string{"core/v1/configmaps": "configmaps", "batch/v1/jobs": "jobs.batch",
		"resource.k8s.io/v1/deviceclasses": "deviceclasses.resource.k8s.io"} {
		if got := kubectlName(key); got != want {
			t.Errorf("kubectlName(%q) = %q, want %q", key, got, want)
		}
	}
}
