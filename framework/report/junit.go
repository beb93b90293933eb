package report

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// JUnit renders the run as JUnit XML in the dialect Jenkins (junit plugin) and GitLab
// read: <testsuites> holding one <testsuite> per profile, one <testcase> per test. The
// profile is the classname so CI views group tests the way the report does, and the
// name starts with "[ID]" so a test can be found in the YAML report and re-run by focus.
//
// Suites come in the order profiles were requested; profiles of tests that were not
// requested follow in order of first appearance, so that no executed test is missing
// from CI. A requested profile without tests still gets an empty suite: its absence of
// evidence should be visible.
func JUnit(c *Conformance) ([]byte, error) {
	return JUnitOf([]NamedRun{{Run: c}})
}

// NamedRun is one run of several put in one JUnit file (JUnitOf), named for its suites.
type NamedRun struct {
	Name string // "" for a run alone
	Run  *Conformance
}

// JUnitOf renders several runs as one JUnit file, as a night of runs (its pairs) is read by
// CI: each run's suites as JUnit renders them, named "<run name> <profile>".
func JUnitOf(runs []NamedRun) ([]byte, error) {
	root := junitTestsuites{Name: "skewcheck"}
	var total time.Duration
	for _, r := range runs {
		suites, d := junitSuites(r.Run)
		for _, s := range suites {
			if r.Name != "" {
				s.Name = r.Name + " " + s.Name
			}
			root.Tests += s.Tests
			root.Failures += s.Failures
			root.Skipped += s.Skipped
			root.Suites = append(root.Suites, s)
		}
		total += d
	}
	root.Time = seconds(total)
	out, err := xml.MarshalIndent(root, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// junitSuites are c's suites, one per profile, and their time in all.
func junitSuites(c *Conformance) ([]junitTestsuite, time.Duration) {
	byProfile := map[string][]Test{}
	var order []string
	addProfile := func(name string) {
		if _, ok := byProfile[name]; !ok {
			byProfile[name] = nil
			order = append(order, name)
		}
	}
	for _, name := range c.ProfilesRequested {
		addProfile(name)
	}
	for _, t := range c.Tests {
		addProfile(t.Profile)
		byProfile[t.Profile] = append(byProfile[t.Profile], t)
	}
	var suites []junitTestsuite
	var total time.Duration
	for _, name := range order {
		s := junitTestsuite{
			Name:       name,
			Timestamp:  junitTimestamp(c.Date),
			Properties: junitRunProperties(c),
		}
		var d time.Duration
		for _, t := range byProfile[name] {
			s.Testcases = append(s.Testcases, junitCase(t))
			s.Tests++
			switch outcome(t.Result) {
			case Failed:
				s.Failures++
			case Skipped:
				s.Skipped++
			}
			d += t.Duration
		}
		s.Time = seconds(d)
		total += d
		suites = append(suites, s)
	}
	return suites, total
}

// junitCase puts the same text in the message attribute and in the element body because
// the two CI systems read different places: Jenkins shows message as "Error Message",
// GitLab shows the element text as the test's details.
func junitCase(t Test) junitTestcase {
	name := "[" + t.ID + "]"
	if t.Description != "" {
		name += " " + t.Description
	}
	tc := junitTestcase{Name: name, Classname: t.Profile, Time: seconds(t.Duration)}
	switch outcome(t.Result) {
	case Failed:
		msg := t.Failure
		if t.Result != Failed { // a runner bug; say so rather than pass it off as a finding
			msg = fmt.Sprintf("unknown result %q", t.Result)
			if t.Failure != "" {
				msg += ": " + t.Failure
			}
		}
		tc.Failure = &junitMessage{Message: msg, Type: "failure", Text: msg}
	case Skipped:
		tc.Skipped = &junitMessage{Message: t.SkipReason, Text: t.SkipReason}
	}
	// Known deviations and evidence are not results, so they go to system-out, which
	// both CI systems show next to the test without changing its status.
	var out []string
	if t.KnownDeviation != "" {
		out = append(out, "known deviation: "+t.KnownDeviation)
	}
	for _, p := range t.SpecVsCode {
		out = append(out, fmt.Sprintf("%s, %s says: %s; code does (asserted): %s (%s)", p.Spec, p.Section, p.SpecSays, p.CodeDoes, p.CodeRef))
	}
	for _, a := range t.Artifacts {
		out = append(out, "artifact: "+a)
	}
	tc.SystemOut = strings.Join(out, "\n")
	return tc
}

// junitRunProperties records what is needed to reproduce the run, since a JUnit file
// is often all that is kept of a CI job.
func junitRunProperties(c *Conformance) *junitProperties {
	var ps []junitProperty
	add := func(name, value string) {
		if value != "" {
			ps = append(ps, junitProperty{Name: name, Value: value})
		}
	}
	add("skewcheckVersion", c.SkewcheckVersion)
	add("target", c.Target)
	add("upstream", c.Upstream)
	add("seed", strconv.FormatInt(c.Seed, 10))
	add("focus", c.Focus)
	add("skip", c.Skip)
	return &junitProperties{Properties: ps}
}

// seconds is the JUnit time format: decimal seconds, millisecond precision.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// junitTimestamp uses the Ant schema's form (ISO 8601 without zone, here UTC), which
// strict parsers expect; it is left out when the run has no date.
func junitTimestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}

type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr,omitempty"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Skipped  int              `xml:"skipped,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Testcases  []junitTestcase  `xml:"testcase"`
}

type junitProperties struct {
	Properties []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}
