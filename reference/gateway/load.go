package gateway

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// document is one UpstreamCluster as read from the config directory.
type document struct {
	// source names it in errors: the file, and the document's place in it when the file
	// holds several ("clusters.yaml#2").
	source string
	// dir resolves the relative …File paths it names.
	dir     string
	cluster gwapi.UpstreamCluster
}

func (d *document) String() string {
	if d.cluster.Name == "" {
		return d.source
	}
	return fmt.Sprintf("%s (UpstreamCluster %q)", d.source, d.cluster.Name)
}

// configFiles are the files of dir the gateway reads: *.yaml, *.yml and *.json, not hidden
// (editors' swap and backup files are), in name order.
func configFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the config directory %s: %w (create it and write UpstreamCluster YAML files into it)", dir, err)
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		switch filepath.Ext(name) {
		case ".yaml", ".yml", ".json":
			out = append(out, filepath.Join(dir, name))
		}
	}
	sort.Strings(out)
	return out, nil
}

// snapshotDir reads every config file and returns their contents with a fingerprint, so a
// poll can tell cheaply whether anything changed.
func snapshotDir(dir string) (map[string][]byte, [32]byte, error) {
	files, err := configFiles(dir)
	if err != nil {
		return nil, [32]byte{}, err
	}
	h := sha256.New()
	contents := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, [32]byte{}, fmt.Errorf("reading %s: %w", f, err)
		}
		contents[f] = b
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return contents, sum, nil
}

// parseDocuments decodes every YAML document of every file, strictly: an unknown field is
// an error (a typo must not silently change routing). Problems are collected, not stopped
// at.
func parseDocuments(contents map[string][]byte) ([]*document, []Problem) {
	names := make([]string, 0, len(contents))
	for f := range contents {
		names = append(names, f)
	}
	sort.Strings(names)
	var docs []*document
	var problems []Problem
	for _, f := range names {
		raws, err := splitYAML(contents[f])
		if err != nil {
			problems = append(problems, Problem{Document: filepath.Base(f), Message: "not valid YAML: " + err.Error()})
			continue
		}
		for i, raw := range raws {
			source := filepath.Base(f)
			if len(raws) > 1 {
				source = fmt.Sprintf("%s#%d", source, i+1)
			}
			d := &document{source: source, dir: filepath.Dir(f)}
			if err := yaml.UnmarshalStrict(raw, &d.cluster); err != nil {
				problems = append(problems, Problem{Document: source, Message: "cannot be decoded as an UpstreamCluster: " + err.Error() +
					" (check the field names against framework/apis/gateway/v1alpha1/types.go; KubeGateway fields this gateway does not implement are refused)"})
				continue
			}
			if d.cluster.APIVersion != gwapi.APIVersion || d.cluster.Kind != gwapi.Kind {
				problems = append(problems, Problem{Document: source, Field: "apiVersion/kind",
					Message: fmt.Sprintf("is %q/%q; want apiVersion: %s and kind: %s", d.cluster.APIVersion, d.cluster.Kind, gwapi.APIVersion, gwapi.Kind)})
				continue
			}
			docs = append(docs, d)
		}
	}
	return docs, problems
}

// splitYAML cuts a file at "---" lines and drops empty documents.
func splitYAML(b []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			out = append(out, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}
