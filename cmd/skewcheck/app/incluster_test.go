package app

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestInClusterContract: the environment hydrophone and sonobuoy give the conformance image
// becomes conformance's flags, and the results go where each tool reads them.
func TestInClusterContract(t *testing.T) {
	env := map[string]string{"E2E_FOCUS": "MVP-0", "E2E_SKIP": "MVP-05", "E2E_EXTRA_ARGS": "--upstream  --seed 7", "SKEWCHECK_PROFILES": "mvp"}
	args, results := inClusterArgs(func(k string) string { return env[k] })
	want := []string{"conformance", "--in-cluster", "--profiles", "mvp", "--report-dir", "/tmp/results", "--focus", "MVP-0", "--skip", "MVP-05", "--upstream", "--seed", "7"}
	if !slices.Equal(args, want) || results != "/tmp/results" {
		t.Errorf("hydrophone's environment: %v into %s, want %v into /tmp/results", args, results, want)
	}
	env = map[string]string{"SONOBUOY_RESULTS_DIR": "/tmp/sonobuoy/results"}
	args, results = inClusterArgs(func(k string) string { return env[k] })
	if results != "/tmp/sonobuoy/results" || !slices.Contains(args, "mvp,discovery") {
		t.Errorf("sonobuoy's environment: %v into %s, want the default profiles into /tmp/sonobuoy/results", args, results)
	}
}

// TestResultsThroughTheLog: what the pod packs between the markers of its log, certify
// unpacks, file for file, whatever else the log holds around it.
func TestResultsThroughTheLog(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"conformance-report.json": `{"kind":"ConformanceReport"}`, "junit_01.xml": "<testsuites/>", "e2e.log": strings.Repeat("x", 10000)}
	for n, c := range files {
		os.WriteFile(filepath.Join(src, n), []byte(c), 0o644)
	}
	archive, err := tarGz(src)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	log.WriteString("the run's output\n" + resultsBegin + "\n")
	enc := encodeLines(archive)
	log.WriteString(enc + resultsEnd + "\ntrailing line\n")
	dst := t.TempDir()
	names, err := untarResults(log.Bytes(), dst)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(files) {
		t.Errorf("unpacked %v, want %d files", names, len(files))
	}
	for n, c := range files {
		if b, _ := os.ReadFile(filepath.Join(dst, n)); string(b) != c {
			t.Errorf("%s: %d bytes, want %d", n, len(b), len(c))
		}
	}
	if _, err := untarResults([]byte("a run killed before its results\n"), dst); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Errorf("a log without results: %v, want an error saying the run did not finish", err)
	}
}

// TestSonobuoyPluginExample: docs/examples' manifest is what certify --sonobuoy-plugin
// prints, and it has the fields sonobuoy's plugin loader reads: a Job driver, a plugin
// name, junit results, and a container with the image, mounting the results volume where
// the worker waits for the done file.
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
		Config map[string]string `json:"sonobuoy-config"`
		Spec   struct {
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
	if m.Config["driver"] != "Job" || m.Config["plugin-name"] == "" || m.Config["result-format"] != "junit" {
		t.Errorf("sonobuoy-config %v: want driver Job, a plugin-name, result-format junit", m.Config)
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
	if env["SONOBUOY_RESULTS_DIR"] != "/tmp/sonobuoy/results" || env["E2E_EXTRA_ARGS"] != "--upstream" {
		t.Errorf("env %v", env)
	}
}
