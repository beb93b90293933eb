//go:build !incluster

package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/registry"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// TestClusterListOutput: cluster list -o json and -o yaml print a list even when there is
// no cluster ([], never null, and not the hint the table prints), each cluster an object
// with lowerCamel names. (Printed from entries: registry.List asks Docker of kind's.)
func TestClusterListOutput(t *testing.T) {
	for format, want := range map[outputFormat]string{"json": "[]\n", "yaml": "[]\n", "text": "no clusters; create one with"} {
		var out bytes.Buffer
		if err := printClusters(&out, nil, format); err != nil || !strings.HasPrefix(out.String(), want) {
			t.Errorf("cluster list -o %s with no cluster: %v, %q; want %q", format, err, out.String(), want)
		}
	}
	entries := []registry.Entry{{Name: "skew", Provider: "local", Status: "running", Versions: []string{"v1.35.4", "v1.36.3"}, Kubeconfig: "/k"}}
	var text, out bytes.Buffer
	if err := printClusters(&text, entries, "text"); err != nil || text.String() != "NAME  PROVIDER  STATUS   VERSIONS         KUBECONFIG\nskew  local     running  v1.35.4,v1.36.3  /k\n" {
		t.Errorf("cluster list: %v:\n%s", err, text.String())
	}
	if err := printClusters(&out, entries, "json"); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	for _, key := range []string{"name", "provider", "status", "versions", "kubeconfig"} {
		if _, ok := got[0][key]; !ok {
			t.Errorf("cluster list -o json: no %q in %v", key, got[0])
		}
	}
}

// TestSkewOutputNames: cluster skew -o json prints discovery.Skew as its package names it.
func TestSkewOutputNames(t *testing.T) {
	var out bytes.Buffer
	skew := []discovery.Skew{{GVR: discovery.GVR{Group: "batch", Version: "v1", Resource: "jobs"}, ServedBy: []string{"apiserver-2"}, Missing: []string{"apiserver-1"}}}
	if err := outputFormat("json").print(&out, skew, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"gvr": {`, `"resource": "jobs"`, `"servedBy": [`, `"missingFrom": [`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("cluster skew -o json lacks %s:\n%s", want, out.String())
		}
	}
}
