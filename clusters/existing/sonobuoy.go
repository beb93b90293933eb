package existing

import (
	"sort"

	"sigs.k8s.io/yaml"
)

// SonobuoyPlugin is a sonobuoy plugin manifest (sonobuoy run -p plugin.yaml) that runs
// skewcheck's image as a Job plugin: sonobuoy's worker waits for the done file under
// SONOBUOY_RESULTS_DIR, which `skewcheck in-cluster` writes with the path of its results
// tarball, read as JUnit (result-format junit). env is the run's environment
// (SKEWCHECK_PROFILES, E2E_FOCUS, E2E_EXTRA_ARGS, ...).
func SonobuoyPlugin(image string, env map[string]string) ([]byte, error) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vars := []map[string]string{{"name": "SONOBUOY_RESULTS_DIR", "value": "/tmp/sonobuoy/results"}}
	for _, k := range keys {
		vars = append(vars, map[string]string{"name": k, "value": env[k]})
	}
	return yaml.Marshal(map[string]any{
		"sonobuoy-config": map[string]any{
			"driver":        "Job",
			"plugin-name":   "skewcheck",
			"result-format": "junit",
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
