package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// sample is a run with every field set, so the schema is exercised on optional fields
// too, and with text that XML and JSON must escape.
func sample() *Conformance {
	return &Conformance{
		APIVersion:       ReportAPIVersion,
		Kind:             ReportKind,
		Date:             time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC),
		SkewcheckVersion: "v0.1.0",
		Implementation: Implementation{
			Organization: "example", Project: "proxy", Version: "1.2.3",
			URL: "https://example.com/proxy", Contact: []string{"@someone"},
		},
		Target: "local",
		Endpoints: []Endpoint{
			{Name: "apiserver-a", Version: "v1.35.0", URL: "https://127.0.0.1:6443"},
			{Name: "apiserver-b", Version: "v1.35.0", EmulationVersion: "1.34", URL: "https://127.0.0.2:6443",
				Served: []string{"batch/v1/jobs", "core/v1/pods"}},
		},
		ProfilesRequested: []string{"core", "watch"},
		Tests: []Test{
			{ID: "core-2", Profile: "core", Description: "lists agree", Result: Passed, Duration: 1500 * time.Millisecond,
				Measurements: map[string]float64{"seconds": 1.5}, SpecVsCode: []SpecVsCode{sampleSpecVsCode}},
			{ID: "core-1", Profile: "core", Description: "get <pods> & more", Result: Failed, Duration: 2 * time.Second,
				Failure: "want 3 items, got 2\n\x1b[31mred\x1b[0m", Artifacts: []string{"artifacts/core-1/diff.txt"}},
			{ID: "watch-1", Profile: "watch", Description: "resumes", Result: Skipped, SkipReason: "no peer proxy",
				KnownDeviation: "v1.34: watch cache lags", DeviationChecks: []DeviationCheck{{Endpoint: "apiserver-b", Version: "v1.35.0", Seen: DeviationObserved}}},
			{ID: "extra-1", Profile: "extra", Description: "not requested", Result: Passed},
		},
		Seed:         -9007199254740993, // beyond float64 precision: must survive YAML and JSON
		Timeouts:     map[string]string{"test": "30s"},
		Focus:        "core",
		ArtifactsDir: "artifacts",
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name    string
		results []Result
		want    Profile
	}{
		{"all pass", []Result{Passed, Passed},
			Profile{Name: "p", Result: ProfileSuccess, Passed: 2}},
		{"one skipped", []Result{Passed, Skipped},
			Profile{Name: "p", Result: ProfilePartial, Passed: 1, Skipped: 1, SkippedTests: []string{"t1"}}},
		{"one failed", []Result{Failed, Skipped, Passed},
			Profile{Name: "p", Result: ProfileFailure, Passed: 1, Failed: 1, Skipped: 1,
				FailedTests: []string{"t0"}, SkippedTests: []string{"t1"}}},
		{"no tests", nil,
			Profile{Name: "p", Result: ProfilePartial}},
		{"unknown result is a failure", []Result{Passed, ""},
			Profile{Name: "p", Result: ProfileFailure, Passed: 1, Failed: 1, FailedTests: []string{"t1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Conformance{ProfilesRequested: []string{"p"}}
			for i, r := range tc.results {
				c.Tests = append(c.Tests, Test{ID: "t" + string(rune('0'+i)), Profile: "p", Result: r})
			}
			// A test of a profile not requested must not leak into the summary.
			c.Tests = append(c.Tests, Test{ID: "x", Profile: "other", Result: Failed})
			Summarize(c)
			if len(c.Profiles) != 1 {
				t.Fatalf("profiles = %+v, want one", c.Profiles)
			}
			got, _ := json.Marshal(c.Profiles[0])
			want, _ := json.Marshal(tc.want)
			if !bytes.Equal(got, want) {
				t.Errorf("profile =\n %s\nwant\n %s", got, want)
			}
			if c.Success() != (tc.want.Result == ProfileSuccess) {
				t.Errorf("Success() = %v with result %s", c.Success(), tc.want.Result)
			}
		})
	}
}

func TestSummarizeSortsAndSuccessNeedsAllProfiles(t *testing.T) {
	c := sample()
	Summarize(c)
	names := []string{}
	for _, p := range c.Profiles {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"core", "watch"}) {
		t.Fatalf("profiles %v, want requested ones in order", names)
	}
	c.Tests = []Test{
		{ID: "b", Profile: "core", Result: Failed}, {ID: "a", Profile: "core", Result: Failed},
		{ID: "w", Profile: "watch", Result: Passed},
	}
	Summarize(c)
	if got := c.Profiles[0].FailedTests; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("failedTests = %v, want sorted", got)
	}
	if c.Success() {
		t.Error("Success() with a failed profile")
	}
	c.Tests = []Test{{ID: "c", Profile: "core", Result: Passed}, {ID: "w", Profile: "watch", Result: Passed}}
	Summarize(c)
	if !c.Success() {
		t.Errorf("Success() = false with %+v", c.Profiles)
	}
	if (&Conformance{}).Success() {
		t.Error("Success() with nothing requested")
	}
}

func TestClosingLine(t *testing.T) {
	c := sample()
	if got, want := ClosingLine(c), "2 passed, 1 failed, 1 skipped"; got != want {
		t.Errorf("ClosingLine = %q, want %q", got, want)
	}
	if got, want := ClosingLine(&Conformance{}), "0 passed, 0 failed, 0 skipped"; got != want {
		t.Errorf("ClosingLine = %q, want %q", got, want)
	}
	if !regexp.MustCompile(`^\d+ passed, \d+ failed, \d+ skipped$`).MatchString(ClosingLine(c)) {
		t.Errorf("ClosingLine %q does not match the CI pattern", ClosingLine(c))
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b") // Write must create it
	c := sample()
	Summarize(c)
	paths, err := Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, YAMLFile), filepath.Join(dir, JSONFile), filepath.Join(dir, JUnitFile)}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths = %v, want %v", paths, want)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("dir holds %d entries, want 3 (no temporary files left)", len(entries))
	}

	jsonDoc := mustRead(t, paths[1])
	if err := Validate(jsonDoc); err != nil {
		t.Errorf("written JSON does not validate: %v", err)
	}
	if !bytes.Contains(jsonDoc, []byte("\n  \"apiVersion\"")) {
		t.Error("JSON is not indented")
	}
	if !bytes.Contains(jsonDoc, []byte("get <pods> & more")) {
		t.Error("JSON HTML-escapes text")
	}
	var back Conformance
	if err := json.Unmarshal(jsonDoc, &back); err != nil {
		t.Fatal(err)
	}
	if back.Tests[0].Duration != 1500*time.Millisecond || back.Seed != -9007199254740993 || !back.Date.Equal(c.Date) {
		t.Errorf("JSON did not round-trip: %+v", back)
	}

	// The YAML carries the same document, so it too must match the schema.
	yamlJSON, err := yaml.YAMLToJSON(mustRead(t, paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(yamlJSON); err != nil {
		t.Errorf("written YAML does not validate: %v", err)
	}
	var fromYAML Conformance
	if err := json.Unmarshal(yamlJSON, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if fromYAML.Seed != c.Seed || !fromYAML.Date.Equal(c.Date) {
		t.Errorf("YAML did not round-trip: seed %d date %v", fromYAML.Seed, fromYAML.Date)
	}

	s := parseJUnit(t, mustRead(t, paths[2]))
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 1 {
		t.Errorf("testsuites tests/failures/skipped = %d/%d/%d, want 4/1/1", s.Tests, s.Failures, s.Skipped)
	}
}

func TestMarshalFillsDefaults(t *testing.T) {
	// A bare report, as a runner that crashed early might leave, still validates.
	doc, err := json.Marshal(&Conformance{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(doc); err != nil {
		t.Errorf("empty report does not validate: %v\n%s", err, doc)
	}
}

func TestValidateRejects(t *testing.T) {
	c := sample()
	Summarize(c)
	good, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	test0 := func(m map[string]any) map[string]any { return m["tests"].([]any)[0].(map[string]any) }
	cases := []struct {
		name string
		doc  []byte
		want []string // all must appear in the error
	}{
		{"unknown top-level field", edit(func(m map[string]any) { m["profilesRequsted"] = []any{} }),
			[]string{"profilesRequsted"}},
		{"unknown nested field", edit(func(m map[string]any) { test0(m)["skipreason"] = "x" }),
			[]string{"/tests/0", "skipreason"}},
		{"wrong test result", edit(func(m map[string]any) { test0(m)["result"] = "pass" }),
			[]string{"/tests/0/result", "passed"}},
		{"wrong profile result", edit(func(m map[string]any) {
			m["profiles"].([]any)[0].(map[string]any)["result"] = "succeeded"
		}), []string{"/profiles/0/result", "success"}},
		{"wrong kind", edit(func(m map[string]any) { m["kind"] = "Report" }),
			[]string{"/kind", "ConformanceReport"}},
		{"missing required", edit(func(m map[string]any) { delete(m, "seed") }),
			[]string{"seed"}},
		{"negative duration", edit(func(m map[string]any) { test0(m)["durationNanos"] = -1 }),
			[]string{"/tests/0/durationNanos"}},
		{"bad date", edit(func(m map[string]any) { m["date"] = "yesterday" }),
			[]string{"/date"}},
		{"not JSON", []byte("{"), []string{"not JSON"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.doc)
			if err == nil {
				t.Fatal("validated")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestSchemaIsEmbedded(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatal(err)
	}
	if s["$id"] != schemaURL {
		t.Errorf("schema $id %v, want %s", s["$id"], schemaURL)
	}
}

func TestJUnit(t *testing.T) {
	c := sample()
	doc, err := JUnit(c)
	if err != nil {
		t.Fatal(err)
	}
	s := parseJUnit(t, doc)
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 1 || s.Errors != 0 {
		t.Errorf("testsuites counts = %+v", s)
	}
	// Requested profiles first in order, then the unrequested one so nothing is lost.
	var names []string
	for _, su := range s.Suites {
		names = append(names, su.Name)
	}
	if !slices.Equal(names, []string{"core", "watch", "extra"}) {
		t.Fatalf("suites %v", names)
	}
	core := s.Suites[0]
	if core.Tests != 2 || core.Failures != 1 || core.Skipped != 0 || core.Time != "3.500" {
		t.Errorf("core suite = %+v", core)
	}
	failed := core.Cases[1]
	if failed.Name != "[core-1] get <pods> & more" || failed.Classname != "core" || failed.Time != "2.000" {
		t.Errorf("failed case = %+v", failed)
	}
	if failed.Failure == nil || !strings.HasPrefix(failed.Failure.Message, "want 3 items, got 2") ||
		!strings.Contains(failed.Failure.Text, "want 3 items") {
		t.Errorf("failure = %+v", failed.Failure)
	}
	if !strings.Contains(failed.SystemOut, "artifacts/core-1/diff.txt") {
		t.Errorf("system-out = %q", failed.SystemOut)
	}
	if core.Cases[0].Failure != nil || core.Cases[0].Skipped != nil {
		t.Errorf("passed case = %+v", core.Cases[0])
	}
	skipped := s.Suites[1].Cases[0]
	if skipped.Skipped == nil || skipped.Skipped.Message != "no peer proxy" {
		t.Errorf("skipped = %+v", skipped.Skipped)
	}
	if !strings.Contains(skipped.SystemOut, "v1.34: watch cache lags") {
		t.Errorf("known deviation not in system-out: %q", skipped.SystemOut)
	}
	if s.Suites[1].Timestamp != "2026-03-04T05:06:07" {
		t.Errorf("timestamp = %q", s.Suites[1].Timestamp)
	}
}

// junitDoc is a reader's view of JUnit, independent of the writer's types.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name      string `xml:"name,attr"`
		Tests     int    `xml:"tests,attr"`
		Failures  int    `xml:"failures,attr"`
		Skipped   int    `xml:"skipped,attr"`
		Time      string `xml:"time,attr"`
		Timestamp string `xml:"timestamp,attr"`
		Cases     []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, doc []byte) junitDoc {
	t.Helper()
	var s junitDoc
	if err := xml.Unmarshal(doc, &s); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, doc)
	}
	return s
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUpstreamDeclaredIsRecorded: a target declared upstream by the user is said to be so
// in the JSON (valid against the schema) and in JUnit, which is often all CI keeps.
func TestUpstreamDeclaredIsRecorded(t *testing.T) {
	c := sample()
	c.Upstream = "declared"
	b, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(b); err != nil {
		t.Errorf("a report with upstream declared does not validate: %v", err)
	}
	if !strings.Contains(string(b), `"upstream": "declared"`) {
		t.Errorf("the JSON report does not say the target was declared upstream")
	}
	doc, err := JUnit(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `<property name="upstream" value="declared">`) {
		t.Errorf("JUnit lacks the upstream property:\n%s", doc)
	}
	c.Upstream = "claimed"
	if b, _ := marshalJSON(c); Validate(b) == nil {
		t.Errorf("the schema accepts upstream %q", c.Upstream)
	}
}

// A run narrowed by --focus passes when what it selected passed, and only then: a test
// skipped for something missing makes it incomplete, a failure fails it.
func TestSelectionVerdict(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tests []Test
		want  Verdict
	}{
		{"selected passed", []Test{{ID: "a", Result: Passed}, {ID: "b", Result: Skipped, SkipReason: NotSelected}}, VerdictPassed},
		{"nothing ran", []Test{{ID: "b", Result: Skipped, SkipReason: NotSelected}}, VerdictIncomplete},
		{"a feature missing", []Test{{ID: "a", Result: Passed}, {ID: "b", Result: Skipped, SkipReason: "needs AuditLog"}}, VerdictIncomplete},
		{"a failure", []Test{{ID: "a", Result: Failed}, {ID: "b", Result: Skipped, SkipReason: NotSelected}}, VerdictFailed},
	} {
		if got := (&Conformance{Tests: tc.tests}).Verdict(); got != tc.want {
			t.Errorf("%s: Verdict() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A mutant's expected failure counts only when the test ran, failed, and said why.
func TestMissedFailures(t *testing.T) {
	c := Conformance{Tests: []Test{
		{ID: "a", Result: Failed, Failure: "the upstream ran the request as the gateway"},
		{ID: "b", Result: Failed, Failure: "something else"},
		{ID: "c", Result: Passed},
		{ID: "d", Result: Skipped, SkipReason: NotSelected},
	}}
	got := MissedFailures(c, map[string]string{"a": "as the gateway", "b": "as the gateway", "c": "x", "d": "x", "e": "x"})
	want := []string{"b: failed, but not saying", "c: passed, want failed", "d: skipped (", "e: not in the report"}
	if len(got) != len(want) {
		t.Fatalf("MissedFailures: %q, want %d lines beginning %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("line %d: %q, want it to begin %q", i, got[i], want[i])
		}
	}
}
