package existing

import (
	"sort"

	"sigs.k8s.io/yaml"
)

// JUnitCopy is the copy of junit.xml a run inside the cluster writes under hydrophone's
// name for it (hydrophone copies it out of the pod), and the one file of the results
// tarball sonobuoy reads as JUnit: its junit processing reads every .xml file of a
// plugin's results unless result-files names some (results.FileOrExtension), which would
// count each test twice.
const JUnitCopy = "junit_01.xml"

// SonobuoyPlugin is a sonobuoy plugin manifest (sonobuoy run -p plugin.yaml) that runs
// skewcheck's image as a Job plugin. Sonobuoy gives every plugin's container
// SONOBUOY_RESULTS_DIR (its gen's applyAutoEnvVars), and its worker waits for the done file
// there, which `skewcheck in-cluster` writes last with the path of its results tarball; the
// manifest only mounts sonobuoy's results volume at the default results directory, as
// sonobuoy's own plugins do. env is the run's environment (SKEWCHECK_PROFILES, E2E_FOCUS,
// E2E_EXTRA_ARGS, ...).
func SonobuoyPlugin(image string, env map[string]string) ([]byte, error) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vars := []map[string]string{}
	for _, k := range keys {
		vars = append(vars, map[string]string{"name": k, "value": env[k]})
	}
	return yaml.Marshal(map[string]any{
		"sonobuoy-config": map[string]any{
			"driver":        "Job",
			"plugin-name":   "skewcheck",
			"result-format": "junit",
			"result-files":  []string{JUnitCopy},
			"description":   "skewcheck: conformance of the Mixed Version Proxy and merged discovery across the cluster's skewed apiservers",
		},
		"spec": map[string]any{
			"name":            "plugin",
			"image":           image,
			"imagePullPolicy": "IfNotPresent",
			"command":         []string{"/entrypoint"},
			"args":            []string{"in-cluster"},
			"env":             vars,
			"volumeMounts":    []map[string]any{{"name": "results", "mountPath": "/tmp/sonobuoy/results"}},
		},
	})
}
