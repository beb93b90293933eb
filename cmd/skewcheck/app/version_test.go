package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestVersionCommand: `skewcheck version` prints the stamped version, the module's, the
// revision and Go's, as text, JSON or YAML; --version stays as it was.
func TestVersionCommand(t *testing.T) {
	b := buildInfo{Version: "v0.1.0", ModuleVersion: "(devel)", Revision: "abc123", Modified: true, GoVersion: "go1.26.0"}
	var text bytes.Buffer
	if err := printVersion(&text, b, "text"); err != nil || text.String() != "skewcheck version v0.1.0\nmodule version: (devel)\nrevision: abc123 (modified)\ngo: go1.26.0\n" {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	for _, format := range []outputFormat{"json", "yaml"} {
		var out bytes.Buffer
		if err := printVersion(&out, b, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		var got buildInfo
		if err := yaml.Unmarshal(out.Bytes(), &got); err != nil || got != b {
			t.Errorf("%s: %+v, %v; want %+v:\n%s", format, got, err, b, out.String())
		}
	}
	if err := printVersion(&bytes.Buffer{}, b, "xml"); err == nil || !strings.Contains(err.Error(), "give text, json or yaml") {
		t.Errorf("-o xml: %v, want the formats named", err)
	}

	var out, errOut bytes.Buffer
	if code := Run([]string{"version", "-o", "json"}, IOStreams{Out: &out, ErrOut: &errOut}); code != 0 {
		t.Fatalf("version -o json: exit %d: %s", code, errOut.String())
	}
	var got buildInfo
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Version != version || !strings.HasPrefix(got.GoVersion, "go") {
		t.Errorf("version -o json of this binary: %+v, %v:\n%s", got, err, out.String())
	}
	out.Reset()
	if code := Run([]string{"--version"}, IOStreams{Out: &out, ErrOut: &errOut}); code != 0 || out.String() != "skewcheck version "+version+"\n" {
		t.Errorf("--version: exit %d:\n%s", code, out.String())
	}
}
