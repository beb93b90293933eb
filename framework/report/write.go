package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// File names in the report directory. They are fixed so that CI configuration
// (artifacts: reports: junit: ...) and people can find them without reading logs.
const (
	YAMLFile  = "conformance-report.yaml"
	JSONFile  = "conformance-report.json"
	JUnitFile = "junit.xml"
)

// Write writes the YAML report (for people and for submission, like Gateway API's),
// the JSON report (for tools; it is what schema.json describes) and junit.xml (for CI
// test views) into dir, creating it if needed, and returns their paths in that order.
// It serializes c as it is: call Summarize first so that Profiles is filled.
func Write(dir string, c *Conformance) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report dir: %w", err)
	}
	jsonDoc, err := marshalJSON(c)
	if err != nil {
		return nil, fmt.Errorf("encode JSON report: %w", err)
	}
	// YAML is derived from the JSON encoding, so both files carry the same field names
	// and values and the schema describes the YAML too.
	yamlDoc, err := yaml.JSONToYAML(jsonDoc)
	if err != nil {
		return nil, fmt.Errorf("encode YAML report: %w", err)
	}
	junitDoc, err := JUnit(c)
	if err != nil {
		return nil, fmt.Errorf("encode JUnit report: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{YAMLFile, yamlDoc}, {JSONFile, jsonDoc}, {JUnitFile, junitDoc}} {
		p := filepath.Join(dir, f.name)
		if err := writeAtomic(p, f.data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// marshalJSON indents for people reading the file and ends it with a newline, as text
// files should. It goes through an Encoder because json.Marshal would HTML-escape "<" and
// "&" in failure texts again after MarshalJSON took care not to.
func marshalJSON(c *Conformance) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeAtomic writes through a temporary file and a rename, so that a CI job or a person
// reading the directory sees either the previous file or the complete new one, never a
// truncated report from a run that was killed while writing.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes 0600 files; reports are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
