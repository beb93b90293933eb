//go:build !incluster

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// envOf is a getenv of a map.
func envOf(env map[string]string) func(string) string { return func(k string) string { return env[k] } }

// TestInClusterContract: the environment hydrophone and sonobuoy give the conformance image
// becomes conformance's flags, and the results go where each tool reads them.
func TestInClusterContract(t *testing.T) {
	p, err := planInCluster(envOf(map[string]string{"E2E_FOCUS": "MVP-0", "E2E_SKIP": "MVP-05", "E2E_EXTRA_ARGS": "--upstream  --seed 7", "SKEWCHECK_PROFILES": "mvp"}))
	want := []string{"conformance", "--in-cluster", "--report-dir", "/tmp/results", "--profiles", "mvp", "--focus", "MVP-0", "--skip", "MVP-05", "--upstream", "--seed", "7"}
	if err != nil || !slices.Equal(p.args, want) || p.results != "/tmp/results" {
		t.Errorf("hydrophone's environment: %v into %s (%v), want %v into /tmp/results", p.args, p.results, err, want)
	}
	p, err = planInCluster(envOf(map[string]string{"SONOBUOY_RESULTS_DIR": "/tmp/sonobuoy/results"}))
	if err != nil || p.results != "/tmp/sonobuoy/results" || !slices.Contains(p.args, "mvp,discovery") {
		t.Errorf("sonobuoy's environment: %v into %s (%v), want the default profiles into /tmp/sonobuoy/results", p.args, p.results, err)
	}
	// hydrophone's --extra-args=--profiles=ipmode: ipmode alone, not added to the default.
	p, err = planInCluster(envOf(map[string]string{"E2E_EXTRA_ARGS": "--profiles=ipmode"}))
	if err != nil || slices.Contains(p.args, "mvp,discovery") || !slices.Equal(p.profiles, []string{"ipmode"}) {
		t.Errorf("--profiles in E2E_EXTRA_ARGS: %v, profiles %v (%v), want ipmode alone", p.args, p.profiles, err)
	}
	if _, err = planInCluster(envOf(map[string]string{"E2E_EXTRA_ARGS": "--profiles ipmode", "SKEWCHECK_PROFILES": "mvp"})); err == nil || !strings.Contains(err.Error(), "keep one") {
		t.Errorf("SKEWCHECK_PROFILES and --profiles in E2E_EXTRA_ARGS: %v, want a refusal", err)
	}
	p, err = planInCluster(envOf(map[string]string{"SKEWCHECK_OBSERVE": "30m", "SKEWCHECK_OBSERVE_UNTIL": "v1.36.3"}))
	want = []string{"observe", "--in-cluster", "--for", "30m", "--report-dir", "/tmp/results", "--until", "v1.36.3"}
	if err != nil || !slices.Equal(p.args, want) || !p.observe {
		t.Errorf("certify --observe's environment: %v (%v), want %v", p.args, err, want)
	}
}

// hydrophoneEnv is what hydrophone's Deploy (pkg/conformance/deploy.go) gives the
// conformance container when told nothing, with the variables named set as given.
func hydrophoneEnv(set map[string]string) map[string]string {
	env := map[string]string{"E2E_FOCUS": `\[Conformance\]`, "E2E_SKIP": "", "E2E_PROVIDER": "skeleton", "E2E_VERBOSITY": "4",
		"E2E_USE_GO_RUNNER": "true", "E2E_EXTRA_ARGS": "", "E2E_EXTRA_GINKGO_ARGS": ""}
	for k, v := range set {
		env[k] = v
	}
	return env
}

// TestInClusterHydrophoneDefaults: hydrophone's default focus, upstream's conformance tag,
// runs the default profiles whole, and the log says so; every variable it sets is said
// how it was taken.
func TestInClusterHydrophoneDefaults(t *testing.T) {
	p, err := planInCluster(envOf(hydrophoneEnv(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.args, "--focus") || slices.Contains(p.args, "-v=1") {
		t.Errorf("args %v: want no focus and no -v=1", p.args)
	}
	all, _ := framework.Select(suites.All(), suites.DefaultProfiles)
	if len(p.willRun) != len(all) || len(p.selected) != len(all) {
		t.Errorf("will run %d of %d tests, want all %d of the default profiles", len(p.willRun), len(p.selected), len(all))
	}
	notes := strings.Join(p.notes, "\n")
	for _, k := range []string{"E2E_FOCUS", "E2E_PROVIDER", "E2E_VERBOSITY", "E2E_USE_GO_RUNNER"} {
		if !strings.Contains(notes, k+"=") {
			t.Errorf("the log does not say how %s was taken: %s", k, notes)
		}
	}
	if !strings.Contains(notes, "hydrophone's default") {
		t.Errorf("the log does not say the focus was hydrophone's default: %s", notes)
	}
	p, err = planInCluster(envOf(hydrophoneEnv(map[string]string{"E2E_VERBOSITY": "6", "E2E_EXTRA_GINKGO_ARGS": "-v --procs=1", "E2E_FOCUS": "MVP-00"})))
	if err != nil || slices.Index(p.args, "-v=1") != len(p.args)-1 || len(p.willRun) == 0 || len(p.willRun) == len(p.selected) {
		t.Errorf("hydrophone --verbosity 6 --focus MVP-00: %v (%v), %d of %d tests; want -v=1 once and a focus", p.args, err, len(p.willRun), len(p.selected))
	}
}

// TestInClusterRefusals: what the environment asks that skewcheck does not do is refused,
// naming the variable, never ignored.
func TestInClusterRefusals(t *testing.T) {
	for _, c := range []struct{ name, value string }{
		{"E2E_PARALLEL", "true"}, {"E2E_EXTRA_GINKGO_ARGS", "--procs=4"}, {"E2E_EXTRA_GINKGO_ARGS", "--flake-attempts=2"},
		{"E2E_VERBOSITY", "loud"}, {"E2E_PROVIDER", "gce"}, {"E2E_DRYRUN", "perhaps"}, {"SKEWCHECK_RUN", "Not_A_Label"},
		{"E2E_FOCUS", "("}, {"SKEWCHECK_PROFILES", "nosuch"}, {"E2E_EXTRA_ARGS", "--no-such-flag"},
	} {
		_, err := planInCluster(envOf(hydrophoneEnv(map[string]string{c.name: c.value})))
		name := c.name
		if c.name == "E2E_EXTRA_ARGS" {
			name = "--no-such-flag"
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v, want a refusal naming %s", c.name, c.value, err, name)
		}
	}
	if _, err := planInCluster(envOf(map[string]string{"SKEWCHECK_OBSERVE": "30m", "E2E_FOCUS": "MVP"})); err == nil {
		t.Error("SKEWCHECK_OBSERVE with E2E_FOCUS: accepted, want a refusal (an upgrade watch has no tests)")
	}
}

// hydrophoneProgress is hydrophone's reading of e2e.log (pkg/conformance/client/logs.go,
// parseTestProgress): the first "Will run N of M specs", and the "•" after it.
func hydrophoneProgress(t *testing.T, log string) (willRun, done int) {
	t.Helper()
	re := regexp.MustCompile(`Will run (0|[1-9]\d{0,3}|10000) of (0|[1-9]\d{0,3}|10000) specs`)
	m := re.FindStringSubmatchIndex(log)
	if m == nil {
		t.Fatalf("hydrophone finds no spec count in e2e.log, and ends with an error:\n%s", log)
	}
	willRun, _ = strconv.Atoi(log[m[2]:m[3]])
	return willRun, strings.Count(log[m[1]:], "•")
}

// lineIndex is the index of the last of lines that starts with prefix, or -1.
func lineIndex(lines []string, prefix string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], prefix) {
			return i
		}
	}
	return -1
}

// TestInClusterFailsBeforeFirstTest: a run that ends before its first test (here: not in
// a cluster at all, and flags refused) still leaves every file its readers copy out, a
// report in which each test that would have run failed, the exit code, the done file;
// the block in its log unpacks; the error line comes after it, and hydrophone's end line
// among the log's last 30.
func TestInClusterFailsBeforeFirstTest(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		code int
	}{
		{"outside any cluster", nil, 1},
		{"refused flags", map[string]string{"E2E_PARALLEL": "y"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			results := t.TempDir()
			t.Setenv("KUBERNETES_SERVICE_HOST", "") // no cluster to reach, as outside a pod
			for k, v := range hydrophoneEnv(c.env) {
				t.Setenv(k, v)
			}
			t.Setenv("SONOBUOY_RESULTS_DIR", results)
			var out bytes.Buffer
			if code := Run([]string{"in-cluster"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}); code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", code, c.code, out.String())
			}
			for _, f := range []string{"e2e.log", "junit.xml", existing.JUnitCopy, "conformance-report.json", exitCodeFile, "results.tar.gz", "done"} {
				if _, err := os.Stat(filepath.Join(results, f)); err != nil {
					t.Errorf("the results directory lacks %s: %v", f, err)
				}
			}
			e2e, _ := os.ReadFile(filepath.Join(results, "e2e.log"))
			if !strings.HasPrefix(string(e2e), "Will run ") {
				t.Errorf("e2e.log starts %q: hydrophone ends with an error on an e2e.log without its spec count first", strings.SplitN(string(e2e), "\n", 2)[0])
			}
			junit, _ := os.ReadFile(filepath.Join(results, existing.JUnitCopy))
			if !strings.Contains(string(junit), "<failure") || !strings.Contains(string(junit), "before its first test") {
				t.Errorf("%s holds no failure saying the run ended before its first test:\n%s", existing.JUnitCopy, junit)
			}
			if code, _ := os.ReadFile(filepath.Join(results, exitCodeFile)); strings.TrimSpace(string(code)) != "1" {
				t.Errorf("%s holds %q, want 1", exitCodeFile, code)
			}
			names, err := existing.UnpackResults(out.Bytes(), t.TempDir())
			if err != nil || !slices.Contains(names, existing.JUnitCopy) {
				t.Errorf("the block in the log: %v, %v", names, err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			block, ended, failed := lineIndex(lines, "=== skewcheck results "), lineIndex(lines, "Ginkgo ran 1 suite"), lineIndex(lines, "error: ")
			if block < 0 || !(block < ended && ended < failed) || len(lines)-ended > 30 {
				t.Errorf("the log's last block line is line %d, hydrophone's end line %d and the error line %d of %d: want them in that order, the end line among the last 30:\n%s",
					block, ended, failed, len(lines), strings.Join(lines[max(0, block-3):], "\n"))
			}
			if willRun, done := hydrophoneProgress(t, string(e2e)); done != 0 || (c.env == nil && willRun == 0) {
				t.Errorf("hydrophone reads %d of %d specs done from e2e.log, want none done of those that would have run", done, willRun)
			}
		})
	}
}

// TestInClusterDryRun: E2E_DRYRUN lists the tests the focus leaves, counted as hydrophone
// counts them, and makes nothing (no cluster is reached); its JUnit lists them skipped.
func TestInClusterDryRun(t *testing.T) {
	results := t.TempDir()
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for k, v := range hydrophoneEnv(map[string]string{"E2E_DRYRUN": "true", "E2E_FOCUS": "MVP-00"}) {
		t.Setenv(k, v)
	}
	t.Setenv("SONOBUOY_RESULTS_DIR", results)
	var out bytes.Buffer
	if code := Run([]string{"in-cluster"}, IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out}); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	all, _ := framework.Select(suites.All(), suites.DefaultProfiles)
	focused, _ := framework.Focus(all, "MVP-00", "")
	e2e, _ := os.ReadFile(filepath.Join(results, "e2e.log"))
	if willRun, _ := hydrophoneProgress(t, string(e2e)); willRun != len(focused) || len(focused) == 0 {
		t.Errorf("e2e.log says %d will run, want the %d MVP-00x tests", willRun, len(focused))
	}
	for _, tc := range focused {
		if !strings.Contains(string(e2e), tc.ID) {
			t.Errorf("the dry run does not list %s:\n%s", tc.ID, e2e)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(results, existing.JUnitCopy))
	if strings.Count(string(junit), "<skipped") != len(focused) || strings.Contains(string(junit), "<failure") {
		t.Errorf("the dry run's %s, want the %d tests listed skipped:\n%s", existing.JUnitCopy, len(focused), junit)
	}
	if strings.Contains(out.String(), "making ") {
		t.Errorf("the dry run made something:\n%s", out.String())
	}
}

// TestSonobuoyPluginExample: docs/examples' manifest is what certify --sonobuoy-plugin
// prints, and it has the fields sonobuoy's plugin loader reads: a Job driver, a plugin
// name, junit results of junit_01.xml alone, and a container with the image, mounting the
// results volume where the worker waits for the done file; SONOBUOY_RESULTS_DIR is
// sonobuoy's to set.
func TestSonobuoyPluginExample(t *testing.T) {
	var out bytes.Buffer
	if code := Run([]string{"certify", "--sonobuoy-plugin", "--conformance-flag=--upstream"}, IOStreams{Out: &out, ErrOut: &out}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	example, err := os.ReadFile("../../../docs/examples/skewcheck-sonobuoy-plugin.yaml")
	if err != nil || !bytes.Equal(example, out.Bytes()) {
		t.Errorf("docs/examples/skewcheck-sonobuoy-plugin.yaml is not what certify --sonobuoy-plugin --conformance-flag=--upstream prints (%v): regenerate it", err)
	}
	var m struct {
		Config struct {
			Driver       string   `json:"driver"`
			PluginName   string   `json:"plugin-name"`
			ResultFormat string   `json:"result-format"`
			ResultFiles  []string `json:"result-files"`
			Description  string   `json:"description"`
		} `json:"sonobuoy-config"`
		Spec struct {
			Name, Image     string
			ImagePullPolicy string `json:"imagePullPolicy"`
			Command, Args   []string
			Env             []map[string]string
			VolumeMounts    []map[string]string `json:"volumeMounts"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.Config.Driver != "Job" || m.Config.PluginName == "" || m.Config.ResultFormat != "junit" || !slices.Equal(m.Config.ResultFiles, []string{existing.JUnitCopy}) {
		t.Errorf("sonobuoy-config %+v: want driver Job, a plugin-name, result-format junit of %s alone", m.Config, existing.JUnitCopy)
	}
	if m.Spec.Image != DefaultSkewcheckImage || !slices.Equal(m.Spec.Command, []string{"/entrypoint"}) || !slices.Equal(m.Spec.Args, []string{"in-cluster"}) {
		t.Errorf("spec: image %s command %v args %v, want the image's own entrypoint running in-cluster", m.Spec.Image, m.Spec.Command, m.Spec.Args)
	}
	if len(m.Spec.VolumeMounts) != 1 || m.Spec.VolumeMounts[0]["name"] != "results" || m.Spec.VolumeMounts[0]["mountPath"] != "/tmp/sonobuoy/results" {
		t.Errorf("volumeMounts %v: want sonobuoy's results volume at /tmp/sonobuoy/results", m.Spec.VolumeMounts)
	}
	env := map[string]string{}
	for _, e := range m.Spec.Env {
		env[e["name"]] = e["value"]
	}
	if _, set := env["SONOBUOY_RESULTS_DIR"]; set || env["E2E_EXTRA_ARGS"] != "--upstream" {
		t.Errorf("env %v: want E2E_EXTRA_ARGS and no SONOBUOY_RESULTS_DIR (sonobuoy sets it)", env)
	}
}
