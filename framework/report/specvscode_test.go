package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sampleSpecVsCode is one point with a pipe in it, which a Markdown cell must keep.
var sampleSpecVsCode = SpecVsCode{Spec: "KEP-1", Section: "Design > Item 2", SpecSays: "answers 503",
	CodeDoes: "answers 404 | passes through", CodeRef: "k8s.io/x/handler.go:10", CodeVersions: "1.35.4, 1.36.3"}

// TestSpecVsCodeInTheReport: the JSON report carries both sides under specVsCode, valid by
// the schema, and the JUnit file shows them beside the test.
func TestSpecVsCodeInTheReport(t *testing.T) {
	c := sample()
	Summarize(c)
	doc, err := marshalJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(doc); err != nil {
		t.Fatalf("a report with specVsCode does not validate: %v", err)
	}
	var back struct {
		Tests []struct {
			ID         string           `json:"id"`
			SpecVsCode []map[string]any `json:"specVsCode"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	for _, tc := range back.Tests {
		if tc.ID != "core-2" {
			if tc.SpecVsCode != nil {
				t.Errorf("%s carries specVsCode %v, though its test declares none", tc.ID, tc.SpecVsCode)
			}
			continue
		}
		want := map[string]any{"spec": "KEP-1", "section": "Design > Item 2", "specSays": "answers 503",
			"codeDoes": "answers 404 | passes through", "codeRef": "k8s.io/x/handler.go:10", "codeVersions": "1.35.4, 1.36.3"}
		if len(tc.SpecVsCode) != 1 || len(tc.SpecVsCode[0]) != len(want) {
			t.Fatalf("core-2 specVsCode = %v, want [%v]", tc.SpecVsCode, want)
		}
		for k, v := range want {
			if tc.SpecVsCode[0][k] != v {
				t.Errorf("core-2 specVsCode.%s = %v, want %v", k, tc.SpecVsCode[0][k], v)
			}
		}
	}

	// A point missing its code reference is not a point: the schema refuses it.
	bad := strings.Replace(string(doc), `"codeRef": "k8s.io/x/handler.go:10",`, "", 1)
	if bad == string(doc) {
		t.Fatal("the sample's codeRef was not found in the JSON")
	}
	if err := Validate([]byte(bad)); err == nil {
		t.Error("a specVsCode without codeRef validated")
	}

	x, err := JUnit(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(x, []byte("KEP-1, Design &gt; Item 2 says: answers 503; code does (asserted): answers 404 | passes through (k8s.io/x/handler.go:10)")) {
		t.Errorf("JUnit does not show both sides:\n%s", x)
	}
}

// TestWriteSpecVsCode: the terminal block shows, per test, the section, both sides and
// the code's place, and nothing at all for a run without points.
func TestWriteSpecVsCode(t *testing.T) {
	var b strings.Builder
	WriteSpecVsCode(&b, []Test{{ID: "A-1"}, {ID: "A-2", SpecVsCode: []SpecVsCode{sampleSpecVsCode}}})
	got := b.String()
	for _, want := range []string{
		"KEP SAYS / CODE DOES: ",
		"  A-2  KEP-1, Design > Item 2\n",
		"      KEP-1 says: answers 503\n",
		"      code does:  answers 404 | passes through\n",
		"      code:       k8s.io/x/handler.go:10 (read in 1.35.4, 1.36.3)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "A-1") {
		t.Errorf("a test without points is listed:\n%s", got)
	}
	b.Reset()
	WriteSpecVsCode(&b, []Test{{ID: "A-1"}})
	if b.Len() != 0 {
		t.Errorf("a run without points printed %q", b.String())
	}
	// A run focused on other tests (MVP-014 alone, in make conformance) says nothing of
	// the points of the tests it did not select.
	WriteSpecVsCode(&b, []Test{{ID: "A-2", Result: Skipped, SkipKind: Deselected, SpecVsCode: []SpecVsCode{sampleSpecVsCode}}})
	if b.Len() != 0 {
		t.Errorf("a run that did not select the test printed its points: %q", b.String())
	}
}

// TestComparisonEndsWithSpecVsCode: the side-by-side Markdown keeps its table and ends
// with the points of the tests that have them, one row each, pipes escaped; a comparison
// without points has no such section.
func TestComparisonEndsWithSpecVsCode(t *testing.T) {
	up := &Conformance{Tests: []Test{{ID: "A-1", Result: Passed}, {ID: "A-2", Result: Passed, SpecVsCode: []SpecVsCode{sampleSpecVsCode}}}}
	ref := &Conformance{Tests: []Test{{ID: "A-1", Result: Passed}, {ID: "A-2", Result: Failed}}}
	c := Compare([]string{"upstream", "reference"}, []*Conformance{up, ref})
	md := c.Markdown()
	for _, want := range []string{
		"| A-2 | passed | failed |",
		"\n## KEP says / code does\n",
		"| A-2 | KEP-1, Design > Item 2 | answers 503 | answers 404 \\| passes through | k8s.io/x/handler.go:10 (read in 1.35.4, 1.36.3) |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| A-1 | KEP") {
		t.Errorf("a test without points has a row in the section:\n%s", md)
	}
	plain := Compare([]string{"reference"}, []*Conformance{ref}).Markdown()
	if strings.Contains(plain, SpecVsCodeTitle) {
		t.Errorf("a comparison without points has the section:\n%s", plain)
	}
}
