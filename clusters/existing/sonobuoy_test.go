package existing

import (
	"archive/tar"
	"compress/gzip"
	"encoding/xml"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/framework/report"
)

// TestSonobuoyCountsEachTestOnce: the results tarball, read the way sonobuoy reads a junit
// plugin's results with the plugin's result-files, counts each test once, though it holds
// the JUnit twice (junit.xml, and junit_01.xml for hydrophone).
func TestSonobuoyCountsEachTestOnce(t *testing.T) {
	manifest, err := SonobuoyPlugin("skewcheck/skewcheck:dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Config struct {
			ResultFormat string   `json:"result-format"`
			ResultFiles  []string `json:"result-files"`
		} `json:"sonobuoy-config"`
	}
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	if m.Config.ResultFormat != "junit" || !slices.Equal(m.Config.ResultFiles, []string{"junit_01.xml"}) {
		t.Fatalf("sonobuoy-config: result-format %q, result-files %v; want junit and [junit_01.xml]", m.Config.ResultFormat, m.Config.ResultFiles)
	}
	rep := &report.Conformance{ProfilesRequested: []string{"mvp"}, Tests: []report.Test{
		{ID: "MVP-001", Profile: "mvp", Result: report.Passed},
		{ID: "MVP-002", Profile: "mvp", Result: report.Failed, Failure: "404"},
		{ID: "MVP-003", Profile: "mvp", Result: report.Skipped, SkipReason: "not applicable"},
	}}
	junit, err := report.JUnit(rep)
	if err != nil {
		t.Fatal(err)
	}
	src := writeResults(t, map[string]string{"junit.xml": string(junit), "junit_01.xml": string(junit), "e2e.log": "log",
		"artifacts/MVP-002/responses.json": "{}"})
	tarball, err := PackResults(src, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "plugins", "skewcheck", "results", "global")
	decodeAsSonobuoy(t, tarball, results)
	counts := testcasesAsSonobuoy(t, results, m.Config.ResultFiles)
	for _, id := range []string{"MVP-001", "MVP-002", "MVP-003"} {
		if n := counts["["+id+"]"]; n != 1 {
			t.Errorf("sonobuoy counts %s %d times, want once (all: %v)", id, n, counts)
		}
	}
	if without := testcasesAsSonobuoy(t, results, nil); without["[MVP-001]"] != 2 {
		t.Errorf("without result-files sonobuoy would count MVP-001 %d times: the test no longer shows why result-files is needed", without["[MVP-001]"])
	}
}

// decodeAsSonobuoy unpacks the tarball as sonobuoy's aggregator does with a plugin's
// gzipped result (pkg/plugin/aggregation/aggregator.go, handleArchiveResult, into
// plugins/<plugin>/results/global/ for a Job plugin; pkg/tarball/tarball.go,
// DecodeTarball): directories and regular files typed TypeReg, nothing else.
func decodeAsSonobuoy(t *testing.T, tarball, dir string) {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, path.Clean(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeEntry(tr, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// testcasesAsSonobuoy counts the testcases by the "[ID]" their names start with, read as
// sonobuoy post-processes a junit plugin (pkg/client/results/processing.go,
// PostProcessPlugin with JunitProcessFile and FileOrExtension(result-files, ".xml"), then
// ProcessDir's filepath.Walk of the plugin's results; pkg/client/results/junit.go,
// junitProcessReader): every file below the results whose base name is one of
// resultFiles (any .xml file when there are none), its root a testsuites or a testsuite.
func testcasesAsSonobuoy(t *testing.T, results string, resultFiles []string) map[string]int {
	t.Helper()
	type testsuite struct {
		Testcases []struct {
			Name string `xml:"name,attr"`
		} `xml:"testcase"`
	}
	counts := map[string]int{}
	err := filepath.Walk(results, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		if len(resultFiles) > 0 && !slices.Contains(resultFiles, filepath.Base(p)) || len(resultFiles) == 0 && !strings.HasSuffix(p, ".xml") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var root struct {
			XMLName xml.Name
			Suites  []testsuite `xml:"testsuite"`
			testsuite
		}
		if err := xml.Unmarshal(b, &root); err != nil {
			return err
		}
		suites := root.Suites
		if root.XMLName.Local == "testsuite" {
			suites = []testsuite{root.testsuite}
		}
		for _, s := range suites {
			for _, tc := range s.Testcases {
				id, _, _ := strings.Cut(tc.Name, " ")
				counts[id]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}
