//go:build !incluster

package app

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/clusters"
)

// workflow is what TestWorkflowRunsTheNightInShards reads of a GitHub Actions workflow.
type workflow struct {
	Jobs map[string]struct {
		If       string            `json:"if"`
		Needs    any               `json:"needs"`
		Env      map[string]string `json:"env"`
		Outputs  map[string]string `json:"outputs"`
		Strategy struct {
			FailFast *bool          `json:"fail-fast"`
			Matrix   map[string]any `json:"matrix"`
		} `json:"strategy"`
		Steps []workflowStep `json:"steps"`
	} `json:"jobs"`
}

type workflowStep struct {
	ID   string         `json:"id"`
	If   string         `json:"if"`
	Uses string         `json:"uses"`
	Run  string         `json:"run"`
	With map[string]any `json:"with"`
}

// The workflow users copy runs the night as the docs say: a plan job prints the plan and
// the shards' list, a matrix of that many shard jobs runs `make nightly` with the plan,
// its shard and one seed (every shard, whatever another's outcome, its reports uploaded
// always), and a merge job merges whatever shards left, also when some failed. Every
// skewcheck command in it parses with the real CLI's flags, every make variable it sets
// is the Makefile's, and the plan step's shell gives the matrix NIGHTLY_SHARDS shards.
func TestWorkflowRunsTheNightInShards(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", ".ci", "github-workflow.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf(".ci/github-workflow.yml: %v", err)
	}
	plan, shards, merge := w.Jobs["nightly-plan"], w.Jobs["nightly"], w.Jobs["nightly-merge"]
	if len(plan.Steps) == 0 || len(shards.Steps) == 0 || len(merge.Steps) == 0 {
		t.Fatalf("jobs %v: want nightly-plan, nightly and nightly-merge", keys(w.Jobs))
	}
	runs := func(job string) string {
		var all []string
		for _, s := range w.Jobs[job].Steps {
			all = append(all, s.Run)
		}
		return strings.Join(all, "\n")
	}

	// The plan job: the plan as JSON, uploaded; the shards' list as its output.
	if !strings.Contains(runs("nightly-plan"), "nightly --plan") || !strings.Contains(runs("nightly-plan"), "plan.json") {
		t.Errorf("nightly-plan does not write the plan to plan.json:\n%s", runs("nightly-plan"))
	}
	if plan.Outputs["shards"] != "${{ steps.plan.outputs.shards }}" {
		t.Errorf("nightly-plan's outputs %v: want shards from its plan step", plan.Outputs)
	}
	var list string
	for _, s := range plan.Steps {
		if s.ID == "plan" {
			list = regexp.MustCompile(`(?m)^\s*echo "shards=.*$`).FindString(s.Run)
		}
	}
	out := filepath.Join(t.TempDir(), "output")
	sh := exec.Command("bash", "-c", list)
	sh.Env = append(os.Environ(), "NIGHTLY_SHARDS="+plan.Env["NIGHTLY_SHARDS"], "GITHUB_OUTPUT="+out)
	if msg, err := sh.CombinedOutput(); list == "" || err != nil {
		t.Fatalf("the plan step's list of shards %q: %v %s", list, err, msg)
	}
	got, _ := os.ReadFile(out)
	var ids []int
	n, _ := strconv.Atoi(plan.Env["NIGHTLY_SHARDS"])
	if err := json.Unmarshal([]byte(strings.TrimPrefix(strings.TrimSpace(string(got)), "shards=")), &ids); err != nil || n < 2 || len(ids) != n || ids[0] != 1 || ids[n-1] != n {
		t.Errorf("the plan step writes %q for NIGHTLY_SHARDS=%s (%v): want the JSON list 1..n", got, plan.Env["NIGHTLY_SHARDS"], err)
	}

	// The shards: one per entry of the plan job's list, each with the plan, its shard and
	// the run's seed, none cancelled by another, each uploading its reports.
	if shards.Strategy.FailFast == nil || *shards.Strategy.FailFast {
		t.Error("nightly's matrix lacks fail-fast: false: one failed shard would cancel the others, whose jobs would then be missing")
	}
	if shards.Strategy.Matrix["shard"] != "${{ fromJSON(needs.nightly-plan.outputs.shards) }}" || !needs(shards.Needs, "nightly-plan") {
		t.Errorf("nightly's matrix %v (needs %v): want one shard per entry of nightly-plan's list", shards.Strategy.Matrix, shards.Needs)
	}
	for _, k := range []string{"NIGHTLY_SHARDS", "NIGHTLY_VERSIONS"} {
		if shards.Env[k] != plan.Env[k] {
			t.Errorf("%s is %q in the shards and %q in the plan: the plan is split into another number of shards, or of other versions", k, shards.Env[k], plan.Env[k])
		}
	}
	if got, want := plan.Env["NIGHTLY_VERSIONS"], strings.Join(clusters.NightlyVersions, ","); got != want {
		t.Errorf("the workflow's NIGHTLY_VERSIONS is %q, want clusters.NightlyVersions, %q: it overrides the Makefile's", got, want)
	}
	night := runs("nightly")
	for _, want := range []string{"make nightly", "NIGHTLY_PLAN=plan.json", "NIGHTLY_SHARD=${{ matrix.shard }}/${{ env.NIGHTLY_SHARDS }}", "NIGHTLY_SEED="} {
		if !strings.Contains(night, want) {
			t.Errorf("the shard job does not run %q:\n%s", want, night)
		}
	}
	makefile, err := os.ReadFile(filepath.Join("..", "..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range regexp.MustCompile(`\b(NIGHTLY_[A-Z]+)=`).FindAllStringSubmatch(night, -1) {
		if !regexp.MustCompile(`(?m)^`+v[1]+` \?=`).Match(makefile) || !strings.Contains(string(makefile), "$("+v[1]+")") {
			t.Errorf("the shard job sets %s, which make nightly does not use", v[1])
		}
	}
	if !uploadsAlways(shards.Steps, "skewcheck-nightly-shard-${{ matrix.shard }}") {
		t.Error("the shard job does not upload its reports, as skewcheck-nightly-shard-<i>, whatever its outcome")
	}

	// The merge: after every shard, whatever their outcome, of every shard's artifact.
	if !needs(merge.Needs, "nightly") || !strings.Contains(merge.If, "always()") {
		t.Errorf("nightly-merge needs %v if %q: want it after the shards, also when some failed", merge.Needs, merge.If)
	}
	if !strings.Contains(runs("nightly-merge"), "report merge --out _reports/nightly shards/*") {
		t.Errorf("nightly-merge does not merge every shard's directory:\n%s", runs("nightly-merge"))
	}

	// Every skewcheck command parses with the CLI's own flags.
	for job := range w.Jobs {
		for _, line := range strings.Split(runs(job), "\n") {
			_, cmdline, ok := strings.Cut(line, "bin/skewcheck ")
			if !ok {
				continue
			}
			cmdline, _, _ = strings.Cut(cmdline, "|")
			args := strings.Fields(strings.NewReplacer(`"$NIGHTLY_VERSIONS"`, "1.35,1.36", "$previous", "").Replace(cmdline))
			root := NewCommand(IOStreams{})
			c, rest, err := root.Find(args)
			if err == nil {
				err = c.ParseFlags(rest)
			}
			if err != nil || c == root {
				t.Errorf("%s: bin/skewcheck %s: %v", job, cmdline, err)
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// needs reports whether a job's needs (one name, or a list) include job.
func needs(v any, job string) bool {
	switch n := v.(type) {
	case string:
		return n == job
	case []any:
		return slices.Contains(n, any(job))
	}
	return false
}

// uploadsAlways: a step with if: always() uploads an artifact of this name.
func uploadsAlways(steps []workflowStep, name string) bool {
	return slices.ContainsFunc(steps, func(s workflowStep) bool {
		return strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.If == "always()" && s.With["name"] == name
	})
}
