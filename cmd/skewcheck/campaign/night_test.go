package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/framework/matrix"
)

// A night runs each job of its share through the job's kind: a pair's emulation job is a
// child `skewcheck emulation` of the pair, the night's seed and the job's directory, its
// lines in the log behind the job's ID, its outcome a line of the page and the night's
// nightly.json. A child that fails makes the night Failed, naming the job and the child's
// error. The child here is a script standing in for skewcheck; the binaries are named.
func TestNightRunsEachJobByItsKind(t *testing.T) {
	dir := t.TempDir()
	plan, err := matrix.NewPlan([]string{"v1.35.4", "v1.36.3"}, matrix.PlanOptions{Emulation: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "plan.json")
	b, _ := json.Marshal(plan)
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.WriteFile(planFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	apiserver := script("kube-apiserver", "exit 0\n")
	o := NightOptions{Versions: plan.Versions, Seed: 7, Shard: "1/1", PlanFile: planFile, Jobs: "/emulation$",
		Binaries: binariesNamed(apiserver, plan.Versions...)}

	o.ReportDir, o.Self = filepath.Join(dir, "passed"), script("passing", "echo \"args: $*\"\nexit 0\n")
	var out, log bytes.Buffer
	if err := Night(context.Background(), o, &out, &log); err != nil {
		t.Fatalf("Night: %v\n%s", err, log.String())
	}
	want := "[v1.35.4-v1.36.3/emulation] args: emulation --versions v1.35.4,v1.36.3 --seed 7 --report-dir " + filepath.Join(o.ReportDir, "v1.35.4-v1.36.3", "emulation")
	if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "--binary kube-apiserver@v1.35.4="+apiserver) {
		t.Errorf("the log lacks the child's line %q and its binaries:\n%s", want, log.String())
	}
	n, err := ReadNightly(filepath.Join(o.ReportDir, "nightly.json"))
	if err != nil || len(n.Others) != 1 || n.Others[0].What != matrix.JobEmulation || !n.Others[0].Passed || len(n.Jobs) != 1 {
		t.Fatalf("nightly.json: %v, others %+v, jobs %+v; want the emulation job, passed", err, n.Others, n.Jobs)
	}
	if !strings.Contains(out.String(), "index: "+filepath.Join(o.ReportDir, "index.html")) {
		t.Errorf("out lacks the index:\n%s", out.String())
	}

	o.ReportDir, o.Self = filepath.Join(dir, "failed"), script("failing", "echo 'error: the pairs differ'\nexit 1\n")
	err = Night(context.Background(), o, &out, &log)
	var failed Failed
	if !errors.As(err, &failed) || !strings.Contains(err.Error(), "v1.35.4-v1.36.3/emulation") || !strings.Contains(err.Error(), "the pairs differ") {
		t.Errorf("a failing job: %v, want Failed naming the job and the child's error", err)
	}
}

// binariesNamed names path as the kube-apiserver of every version, as --binary does.
func binariesNamed(path string, versions ...string) binaries.Options {
	o := binaries.Options{Paths: map[string]string{}}
	for _, v := range versions {
		o.Paths["kube-apiserver@"+v] = path
	}
	return o
}
