package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// TestEmulationCommand runs the one command that asks "does my emulated-version CI predict
// real skew?" on the default pair, with one test (MVP-010: a proxied get and list) so make
// test stays fast: both pairs are made, run and deleted, and the comparison reads the right
// versions. Upstream's emulation drops the APIs the older release lacks: 1.36's mutating
// admission policies are not served by the server emulating 1.35, as by the real 1.35.
func TestEmulationCommand(t *testing.T) {
	integration.Require(t)
	t.Parallel()
	oldV, newV := integration.Versions()
	tmp, dir := t.TempDir(), t.TempDir()
	cmd := exec.Command(cli, "emulation", "--versions", oldV+","+newV, "--profiles", "mvp", "--focus", "MVP-010",
		"--fault-hold", integration.Hold().String(), "--report-dir", dir)
	cmd.Env = cliEnv(t, "TMPDIR="+tmp, "SKEWCHECK_STATE_DIR="+tmp)
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("emulation: %v\n%s", err, out)
	}
	assertNothingLeft(t, tmp)
	if !strings.Contains(out, "emulation predicted the real skew") {
		t.Errorf("output lacks the verdict:\n%s", out)
	}
	validReport(t, filepath.Join(dir, matrix.RealPair))
	validReport(t, filepath.Join(dir, matrix.EmulatedPair)) // with the endpoints' emulationVersion and served GVRs
	raw, err := os.ReadFile(filepath.Join(dir, matrix.EmulationJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var e matrix.Emulation
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(e.Rows, func(r matrix.EmulationRow) bool { return r.ID == "MVP-010" })
	if i < 0 || e.Rows[i].Real != "passed" || e.Rows[i].Emulated != "passed" {
		t.Errorf("MVP-010 should pass on both pairs: %+v", e.Rows)
	}
	if len(e.Real) != 2 || len(e.Emulated) != 2 {
		t.Fatalf("endpoints: real %+v, emulated %+v", e.Real, e.Emulated)
	}
	emulate := strings.TrimPrefix(semver.MajorMinor(oldV), "v")
	if r, m := e.Real[0], e.Emulated[0]; r.Version != oldV || r.EmulationVersion != "" || m.Version != newV || m.EmulationVersion != emulate {
		t.Errorf("apiserver-1: real %s (emulating %q), emulated %s (emulating %q); want %s, and %s emulating %s (the binary's gitVersion stays /version's)",
			r.Version, r.EmulationVersion, m.Version, m.EmulationVersion, oldV, newV, emulate)
	}
	if oldV == "v1.35.4" && newV == "v1.36.3" {
		const map1 = "admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
		for name, eps := range map[string][]string{"real": e.Real[0].Served, "emulated": e.Emulated[0].Served} {
			if slices.Contains(eps, map1) {
				t.Errorf("the %s pair's apiserver-1 serves %s, which 1.35 lacks", name, map1)
			}
		}
		if !slices.Contains(e.Emulated[1].Served, map1) {
			t.Errorf("the emulated pair's apiserver-2 (%s) does not serve %s", newV, map1)
		}
	}
}
