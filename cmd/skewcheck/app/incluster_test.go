//go:build !incluster

package app

import (
	"bytes"
	"os"
	"slices"
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
	env = map[string]string{"SKEWCHECK_OBSERVE": "30m", "SKEWCHECK_OBSERVE_UNTIL": "v1.36.3", "SKEWCHECK_PROFILES": "mvp"}
	args, _ = inClusterArgs(func(k string) string { return env[k] })
	want = []string{"observe", "--in-cluster", "--for", "30m", "--report-dir", "/tmp/results", "--until", "v1.36.3"}
	if !slices.Equal(args, want) {
		t.Errorf("certify --observe's environment: %v, want %v", args, want)
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
