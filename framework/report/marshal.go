package report

import (
	"bytes"
	"encoding/json"
)

// The identity of the report format. The schema pins both, so a consumer can tell a
// skewcheck report from any other YAML it finds and know which schema applies.
const (
	ReportAPIVersion = "skewcheck.io/v1alpha1"
	ReportKind       = "ConformanceReport"
)

// MarshalJSON writes the report in the shape schema.json describes, however it is
// serialized (json.Marshal, sigs.k8s.io/yaml, Write). Go encodes a nil slice or map as
// null, but the schema promises arrays and objects, so that consumers need not guard
// every field; and an empty APIVersion or Kind is filled in, because a report that
// forgot its identity is still this kind of report. HTML escaping is off: failure texts
// quote "<" and "&" and should read as written.
func (c Conformance) MarshalJSON() ([]byte, error) {
	if c.APIVersion == "" {
		c.APIVersion = ReportAPIVersion
	}
	if c.Kind == "" {
		c.Kind = ReportKind
	}
	if c.Endpoints == nil {
		c.Endpoints = []Endpoint{}
	}
	if c.ProfilesRequested == nil {
		c.ProfilesRequested = []string{}
	}
	if c.Profiles == nil {
		c.Profiles = []Profile{}
	}
	if c.Tests == nil {
		c.Tests = []Test{}
	}
	if c.Timeouts == nil {
		c.Timeouts = map[string]string{}
	}
	// plain has Conformance's fields but not this method, so encoding it does not recurse.
	type plain Conformance
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain(c)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
