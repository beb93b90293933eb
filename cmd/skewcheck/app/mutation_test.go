//go:build !incluster

package app

import (
	"io"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/gateway"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/suites"
)

// Every mutant of the plan is one the reference's registry holds and its CLI flag accepts,
// and the families' profiles exist.
func TestMutantFamilies(t *testing.T) {
	runs, err := campaign.PlanMutation(campaign.MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}})
	if err != nil {
		t.Fatal(err)
	}
	// The controllers family's one mutant is upstream's own configuration, the proxy inert
	// as kubeadm leaves it: no registry holds it.
	want := len(peerproxy.Flaws()) + len(gateway.DefectNames()) + len(dataplane.ReferenceFlawed()) + 1
	mutants := 0
	for _, r := range runs {
		if _, err := framework.Select(suites.All(), r.Profiles); err != nil {
			t.Errorf("%s: %v", r.Name, err)
		}
		if r.Baseline() {
			continue
		}
		mutants++
		switch r.Family {
		case "peerproxy":
			ref := referenceFlags{name: "peerproxy", flaw: r.Mutant}
			if err := ref.validate(); err != nil || !slices.Contains(r.Args, "--reference-flaw") {
				t.Errorf("%s: %v, args %v", r.Name, err, r.Args)
			}
		case "gateway":
			if _, err := gateway.ParseDefects([]string{r.Mutant}); err != nil || !slices.Contains(r.Args, "--gateway-defect") {
				t.Errorf("%s: %v, args %v", r.Name, err, r.Args)
			}
		case "ipmode":
			dp := dataplaneFlags{name: r.Mutant}
			if _, err := dp.spec(&framework.Endpoint{}, binaries.Options{}); err != nil || r.Mutant == "reference" {
				t.Errorf("%s: %v", r.Name, err)
			}
		case "controllers":
			if r.Mutant != "kubeadm-peer-proxy" || !slices.Contains(r.Args, "--kubeadm-peer-proxy") {
				t.Errorf("%s: args %v, want the proxy inert as kubeadm leaves it (--kubeadm-peer-proxy)", r.Name, r.Args)
			}
		default:
			t.Errorf("%s: a family this test does not know; check its variants here", r.Name)
		}
	}
	if mutants != want || mutants == 0 {
		t.Errorf("the plan has %d mutants, the registries %d", mutants, want)
	}
}

// --jobs below 1 is refused before anything runs, saying what it wants.
func TestMutationJobs(t *testing.T) {
	cmd := newMutationCommand(IOStreams{Out: io.Discard, ErrOut: io.Discard})
	cmd.SetArgs([]string{"--jobs", "0", "--list"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--jobs 0: give how many runs go at a time") {
		t.Errorf("--jobs 0: %v", err)
	}
}

// mutation --list -o json and -o yaml print the plan as data: every run of the text table,
// in its order, with its family, mutant, flags and report directory, named as mutation.json
// names them; -o without --list is refused, saying it goes with --list.
func TestMutationListOutput(t *testing.T) {
	runs, err := campaign.PlanMutation(campaign.MutationOptions{Jobs: 1, Versions: []string{"v1.35.4", "v1.36.3"}, Mutants: "^gateway/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "yaml"} {
		out, code := runApp(t, t.TempDir(), "mutation", "--list", "--mutants", "^gateway/", "-o", format)
		var got []map[string]any
		if err := yaml.Unmarshal([]byte(out), &got); err != nil || code != 0 || len(got) != len(runs) {
			t.Fatalf("-o %s: exit %d, %d runs (%v), want %d:\n%s", format, code, len(got), err, len(runs), out)
		}
		for i, r := range runs {
			g := got[i]
			args, _ := g["args"].([]any)
			if g["name"] != r.Name || g["family"] != "gateway" || g["baseline"] != r.Baseline() || g["dir"] != r.Dir ||
				len(args) != len(r.Args) || (r.Baseline() && g["mutant"] != nil) || (!r.Baseline() && g["mutant"] != r.Mutant) {
				t.Errorf("-o %s: run %d is %v, want %+v", format, i, g, r)
			}
		}
	}
	if out, code := runApp(t, t.TempDir(), "mutation", "-o", "json"); code != 1 || !strings.Contains(out, "-o prints the runs --list lists: it goes with --list") {
		t.Errorf("-o without --list: exit %d, want 1 and refused:\n%s", code, out)
	}
}
