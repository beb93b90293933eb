package framework

import (
	"encoding/json"

	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// RunLabel names the run that made an object, on every cluster-scoped object a test makes
// (CRDs, ClusterRoles, ClusterRoleBindings) and on the run's namespace, so a run on a
// cluster it does not own finds and removes what it made on any exit (Target.Run).
const RunLabel = "skewcheck.io/run"

// footprint is where the tests of this process's run write: ginkgo allows one run per
// process (Run), so the run's target sets it once, before any test, as ginkgo's own suite
// state is set.
var footprint struct {
	namespace, run string
}

// setFootprint records t's namespace and run for the tests (Run calls it).
func setFootprint(t *Target) {
	footprint.namespace, footprint.run = t.Namespace, t.Run
}

// TestNamespace is where the tests of this run make their namespaced objects: the run's own
// namespace on a cluster skewcheck does not own (Target.Namespace), else default.
func TestNamespace() string {
	if footprint.namespace == "" {
		return "default"
	}
	return footprint.namespace
}

// RunLabels are the labels of every object a test makes: the fixture label, and the run's
// name when the target has one (Target.Run).
func RunLabels() map[string]string {
	l := map[string]string{fixtures.Label: "true"}
	if footprint.run != "" {
		l[RunLabel] = footprint.run
	}
	return l
}

// WithRunLabels is the JSON object body with RunLabels added to its metadata.labels.
func WithRunLabels(body []byte) []byte {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return body // not an object: sent as it is, and the server says what is wrong
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels := map[string]any{}
	if l, ok := meta["labels"].(map[string]any); ok {
		labels = l
	}
	for k, v := range RunLabels() {
		labels[k] = v
	}
	meta["labels"] = labels
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}
