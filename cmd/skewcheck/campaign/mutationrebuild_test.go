package campaign

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/framework/report"
)

// --rebuild holds every report to its cell as the plan says: without a seed given or a
// mutation.json recording one, the reports must still share one seed (the first's), and
// a mutation.json's focus or versions never stand in for the plan's.
func TestRebuildRefusesReportsOfAnotherRun(t *testing.T) {
	o := MutationOptions{Versions: []string{"v1.35.4", "v1.36.3"}, Mutants: "^ipmode/", Jobs: 1, ReportDir: t.TempDir()}
	runs, err := PlanMutation(o)
	if err != nil {
		t.Fatal(err)
	}
	write := func(dir string, c report.Conformance) {
		t.Helper()
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(o.ReportDir, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.ReportDir, dir, report.JSONFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	last := runs[len(runs)-1].Name
	for i, r := range runs {
		c := report.Conformance{Seed: 7, Focus: focusOf(r.Args), Dataplane: dataplane.Default}
		if !r.Baseline() {
			c.Dataplane = r.Mutant
		}
		if i == len(runs)-1 {
			c.Seed = 8 // another matrix's run, left in this directory
		}
		write(r.Dir, c)
	}
	err = RebuildMutation(o, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "run "+last+" left no report: its report ran with seed 8, not the matrix's 7") {
		t.Errorf("--rebuild over reports of seeds 7 and 8 without a mutation.json: %v; want run %s refused for its seed", err, last)
	}

	// A mutation.json of another focus: the plan's (none) holds, so no focused report counts.
	b, _ := json.Marshal(map[string]any{"seed": 7, "focus": "IPM-001", "versions": []string{"v1.34.4", "v1.35.4"}})
	if err := os.WriteFile(filepath.Join(o.ReportDir, "mutation.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RebuildMutation(o, io.Discard); err == nil {
		t.Fatal("--rebuild with a report of seed 8 passed")
	}
	var m struct {
		Versions []string `json:"versions"`
		Focus    string   `json:"focus"`
	}
	if b, err = os.ReadFile(filepath.Join(o.ReportDir, "mutation.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Versions, ",") != "v1.35.4,v1.36.3" || m.Focus != "" {
		t.Errorf("the rebuilt matrix has versions %v and focus %q, the old mutation.json's; want the plan's, v1.35.4,v1.36.3 and none", m.Versions, m.Focus)
	}
}
