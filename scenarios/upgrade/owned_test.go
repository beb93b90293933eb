package upgrade_test

import (
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// ownersViolations are the violations of r about the owners carried through.
func ownersViolations(r *upgrade.Result) []string {
	var out []string
	for _, v := range r.Violations {
		if strings.HasPrefix(v, "owners: ") || strings.HasPrefix(v, "dependent lost: ") {
			out = append(out, v)
		}
	}
	return out
}

// A dependent gone at the end while its owner stands is a violation naming the dependent,
// the owner and its resource, counted; one whose owner no server serves any more is not
// judged, and the table shows every family.
func TestADependentLostWhileItsOwnerStandsIsAViolation(t *testing.T) {
	r := &upgrade.Result{Owners: &upgrade.Owners{ControllerManager: "upgrade-controller-manager_1", Families: []upgrade.Family{
		{GVR: "batch/v1/jobs", Owner: "batch/v1/jobs default/ctrl-owner-1", OwnerThrough: "apiserver-2", DependentsThrough: "apiserver-1",
			OwnerStatus: 200, ReadThrough: "apiserver-2", Dependents: []upgrade.Dependent{
				{Name: "default/ctrl-dependent-1", GoneThrough: []string{"apiserver-1", "apiserver-2"}, Lost: true},
				{Name: "default/ctrl-dependent-2"}}},
		{GVR: "admissionregistration.k8s.io/v1/mutatingadmissionpolicies", Owner: "admissionregistration.k8s.io/v1/mutatingadmissionpolicies ctrl-owner-2",
			OwnerThrough: "apiserver-2", DependentsThrough: "apiserver-1", Dependents: []upgrade.Dependent{{Name: "default/ctrl-dependent-3", GoneThrough: []string{"apiserver-1"}}}},
	}}}
	upgrade.Judge(r)
	got := ownersViolations(r)
	if len(got) != 1 || r.Counts.Dependents != 3 || r.Counts.DependentsLost != 1 {
		t.Fatalf("counts %d dependents, %d lost; violations %q: want 3, 1 lost, one violation", r.Counts.Dependents, r.Counts.DependentsLost, got)
	}
	for _, want := range []string{"default/ctrl-dependent-1", "batch/v1/jobs default/ctrl-owner-1", "(batch/v1/jobs)", "[apiserver-1 apiserver-2]"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("violation %q does not say %q", got[0], want)
		}
	}
	table := r.Table()
	for _, want := range []string{"owners carried through (kube-controller-manager upgrade-controller-manager_1): 2, with 3 dependents, 1 lost",
		"batch/v1/jobs default/ctrl-owner-1, made through apiserver-2 at 0.0s: 200 through apiserver-2 at the end; 2 dependents made through apiserver-1, 1 lost",
		"ctrl-owner-2, made through apiserver-2 at 0.0s: no server serves its resource at the end: not judged"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
}

// Owners asked for and none carried, an owner gone that nothing deleted, and a controller
// manager no longer leading at the end are each a violation: none shows the collector kept
// anything.
func TestOwnersThatShowNothingAreViolations(t *testing.T) {
	tests := []struct {
		name   string
		owners upgrade.Owners
		want   string
	}{
		{"none carried", upgrade.Owners{Skipped: []string{"every endpoint serves the same GVRs"}}, "owners: no owner was carried through the upgrade"},
		{"not leading", upgrade.Owners{LeadingAtEnd: "no kube-controller-manager holds the lease", Families: []upgrade.Family{{Owner: "o", OwnerStatus: 200}}},
			"owners: no kube-controller-manager led at the end (no kube-controller-manager holds the lease)"},
		{"owner gone", upgrade.Owners{Families: []upgrade.Family{{Owner: "batch/v1/jobs default/o", OwnerThrough: "apiserver-2", OwnerStatus: 404, ReadThrough: "apiserver-2",
			Dependents: []upgrade.Dependent{{Name: "default/d", GoneThrough: []string{"apiserver-1"}}}}}},
			"owners: the owner batch/v1/jobs default/o, made through apiserver-2 at 0.0s, is gone at the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &upgrade.Result{Owners: &tt.owners}
			upgrade.Judge(r)
			if got := ownersViolations(r); len(got) != 1 || !strings.HasPrefix(got[0], tt.want) || r.Counts.DependentsLost != 0 {
				t.Errorf("violations %q, %d lost: want one, %q", got, r.Counts.DependentsLost, tt.want)
			}
		})
	}
	r := &upgrade.Result{}
	if upgrade.Judge(r); len(ownersViolations(r)) != 0 || strings.Contains(r.Table(), "owners") {
		t.Errorf("a run without owners: %q", ownersViolations(r))
	}
}
