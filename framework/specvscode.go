package framework

import "github.com/skewcheck/skewcheck/framework/report"

// SpecVsCode is one point where the text of the feature's specification (a KEP) and
// upstream's code disagree about what a test checks. The test asserts what the code does,
// because that is what users of upstream Kubernetes get and what a proxy standing in for
// it must match; this records what the specification says instead, so that a reader of
// the report, who may have read the KEP, sees both and where each is written.
//
// It is not a Deviation: a deviation is upstream failing a behaviour the feature clearly
// promises, which the test asserts and allows upstream alone; here the code's behaviour
// is the one asserted, of every implementation.
type SpecVsCode struct {
	// Spec names the document: "KEP-4020".
	Spec string
	// Section is the heading (and item) of the specification where it says it.
	Section string
	// SpecSays is what the specification says, in its words where they are short.
	SpecSays string
	// CodeDoes is what upstream's code does: what the test asserts.
	CodeDoes string
	// CodeRef is where the code does it: module, file and line, per version read.
	CodeRef string
	// CodeVersions are the releases whose code was read for CodeRef: "1.35.4, 1.36.3".
	CodeVersions string
}

// Report is the record the conformance report carries for it.
func (s SpecVsCode) Report() report.SpecVsCode {
	return report.SpecVsCode{Spec: s.Spec, Section: s.Section, SpecSays: s.SpecSays,
		CodeDoes: s.CodeDoes, CodeRef: s.CodeRef, CodeVersions: s.CodeVersions}
}
