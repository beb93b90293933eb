// Package report is what a conformance run leaves behind: a conformance report (YAML and
// JSON) modelled on Gateway API's ConformanceReport, JUnit XML, and a closing line
// "N passed, N failed, N skipped".
package report

import "time"

// Implementation says whose proxy was tested, so a published report names its subject.
type Implementation struct {
	Organization string   `json:"organization,omitempty"`
	Project      string   `json:"project,omitempty"`
	Version      string   `json:"version,omitempty"`
	URL          string   `json:"url,omitempty"`
	Contact      []string `json:"contact,omitempty"`
}

// Endpoint is one server or proxy endpoint of the target, as it identified itself.
type Endpoint struct {
	Name    string `json:"name"`
	Version string `json:"version"` // what /version reported (gitVersion: the binary's)
	// EmulationVersion is the release the server emulated (--emulated-version, KEP-4330),
	// from /version's emulationMajor and emulationMinor; empty when it emulated none.
	EmulationVersion string `json:"emulationVersion,omitempty"`
	// Prerelease says Version is a Kubernetes prerelease (v1.38.0-beta.0: -alpha.N, -beta.N
	// or -rc.N): what the run found holds for that build, and the release may differ.
	Prerelease bool   `json:"prerelease,omitempty"`
	URL        string `json:"url"`
	// Served are the GVRs the server itself served (its nopeer discovery, read before the
	// tests ran), as group/version/resource with "core" for the legacy group: what a run
	// of another pair is compared by.
	Served []string `json:"served,omitempty"`
}

// Result of one test.
type Result string

const (
	Passed  Result = "passed"
	Failed  Result = "failed"
	Skipped Result = "skipped"
)

// SkipKind is why a skipped test did not run.
type SkipKind string

const (
	// NotApplicable: the behaviour does not exist in the target's versions (the test's
	// version range), or belongs to a mechanism the implementation does not use. Nothing
	// was left unchecked, so it never counts against a profile or the run.
	NotApplicable SkipKind = "not-applicable"
	// Missing: the test applies, but the target or this machine lacks what it needs (a
	// feature, a dataplane, a creatable skewed GVR). Not the implementation's failure, but
	// not checked either: the profile is partial and the run incomplete.
	Missing SkipKind = "missing"
	// Deselected: the run's own --focus or --skip left the test out.
	Deselected SkipKind = "not-selected"
)

// Test is one test's outcome.
type Test struct {
	ID          string        `json:"id"`
	Profile     string        `json:"profile"`
	Description string        `json:"description"`
	Result      Result        `json:"result"`
	Duration    time.Duration `json:"durationNanos"`
	SkipReason  string        `json:"skipReason,omitempty"`
	// SkipKind says why a skipped test did not run, which decides whether the skip counts
	// against the run: see SkipKind's values.
	SkipKind SkipKind `json:"skipKind,omitempty"`
	// MissingFeature is the feature a test skipped as missing lacked, when a feature was
	// what it lacked.
	MissingFeature string `json:"missingFeature,omitempty"`
	Failure        string `json:"failure,omitempty"`
	// KnownDeviation is set when the test found upstream Kubernetes behaving as documented
	// in upstream-facts but not as the feature promises: the versions and the effect.
	KnownDeviation string `json:"knownDeviation,omitempty"`
	// DeviationChecks are where the test looked for its known upstream deviation, and
	// what it saw: the only evidence a deviation's version range is judged by.
	DeviationChecks []DeviationCheck `json:"deviationChecks,omitempty"`
	// SpecVsCode are the points where the feature's specification says one thing and
	// upstream's code does another, for what this test checks: the test asserts what the
	// code does, and this carries both sides with where each is written.
	SpecVsCode []SpecVsCode `json:"specVsCode,omitempty"`
	// Measurements are figures the test took (seconds, counts), by name.
	Measurements map[string]float64 `json:"measurements,omitempty"`
	// Artifacts are files of evidence collected on failure, relative to the report dir.
	Artifacts []string `json:"artifacts,omitempty"`
}

// DeviationCheck is one look for a test's known upstream deviation, at the endpoint whose
// code would show it.
type DeviationCheck struct {
	Endpoint string `json:"endpoint"`
	Version  string `json:"version"`
	// Seen is DeviationObserved (the allowance was used) or DeviationAbsent (the behaviour
	// the deviation covers was checked and held).
	Seen string `json:"seen"`
}

// SpecVsCode is one point where the specification (a KEP) and upstream's code disagree
// about what a test checks, both sides side by side. The test asserts CodeDoes.
type SpecVsCode struct {
	Spec         string `json:"spec"`     // the document: KEP-4020
	Section      string `json:"section"`  // its heading (and item) where it says SpecSays
	SpecSays     string `json:"specSays"` // what the specification says
	CodeDoes     string `json:"codeDoes"` // what upstream's code does: what the test asserts
	CodeRef      string `json:"codeRef"`  // module, file and line, per version read
	CodeVersions string `json:"codeVersions,omitempty"`
}

// What a DeviationCheck saw.
const (
	DeviationObserved = "observed"
	DeviationAbsent   = "absent"
)

// Profile is the summary of one profile asked for.
type Profile struct {
	Name string `json:"name"`
	// Result is success only when no test failed AND every skipped test was not
	// applicable to the target: a profile is claimed whole or not at all.
	Result  string `json:"result"` // success, failure, partial, not-applicable
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// NotApplicable counts the skipped tests that do not apply to the target (a subset of
	// Skipped).
	NotApplicable int `json:"notApplicable,omitempty"`
	// SkippedTests lists skipped test IDs, so "partial" is explained.
	SkippedTests []string `json:"skippedTests,omitempty"`
	FailedTests  []string `json:"failedTests,omitempty"`
}

// Conformance is the whole report of one run.
type Conformance struct {
	APIVersion       string         `json:"apiVersion"` // skewcheck.io/v1alpha1
	Kind             string         `json:"kind"`       // ConformanceReport
	Date             time.Time      `json:"date"`
	SkewcheckVersion string         `json:"skewcheckVersion"`
	Implementation   Implementation `json:"implementation"`
	Target           string         `json:"target"` // local, existing, or reference:<name>
	// Upstream says why known upstream deviations were allowed, if they were: "started"
	// (real kube-apiservers skewcheck ran) or "declared" (--upstream: the user's word).
	Upstream string `json:"upstream,omitempty"`
	// Dataplane names the service dataplane under test, when the run had one (ipmode).
	Dataplane         string            `json:"dataplane,omitempty"`
	DataplaneVersion  string            `json:"dataplaneVersion,omitempty"`
	Endpoints         []Endpoint        `json:"endpoints"`
	ProfilesRequested []string          `json:"profilesRequested"`
	Profiles          []Profile         `json:"profiles"`
	Tests             []Test            `json:"tests"`
	Seed              int64             `json:"seed"`
	Timeouts          map[string]string `json:"timeouts"`
	// Variant is the deliberate mistake the reference under test ran with, as given: its
	// flaw (--reference-flaw) or its defects (--gateway-defect, comma-joined); empty as
	// shipped (a flawed dataplane is Dataplane). The mutation matrix refuses a report whose
	// variant is not the run's.
	Variant string `json:"variant,omitempty"`
	// Focus and Skip are the filters given, so a run can be reproduced exactly.
	Focus string `json:"focus,omitempty"`
	Skip  string `json:"skip,omitempty"`
	// AcceptedMissing are the features the user accepted the target lacks (--accept-missing):
	// a test skipped for lacking only one of them leaves the run complete, and the report
	// still lists it skipped, as missing.
	AcceptedMissing []string `json:"acceptedMissing,omitempty"`
	// ArtifactsDir holds evidence of failures, relative to the report directory.
	ArtifactsDir string `json:"artifactsDir,omitempty"`
	// ProxyState is the Mixed Version Proxy's state at each server, read before any test;
	// nil when the run did not read it.
	ProxyState *ProxyState `json:"proxyState,omitempty"`
}
