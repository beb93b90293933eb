package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the JSON Schema (draft 2020-12) of the JSON report. It is embedded so that
// the binary that writes reports can also check them and publish the schema it follows,
// and so the two cannot drift apart between builds.
//
//go:embed schema.json
var Schema []byte

// schemaURL is schema.json's $id. The compiler is given the embedded bytes under it, so
// validation never fetches anything.
const schemaURL = "https://skewcheck.io/schemas/v1alpha1/conformance-report.json"

// compiled is built once: the schema is constant and compiling it is the costly part.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are only annotations by default in 2020-12; asserting them makes a
	// malformed date an error rather than a silent pass.
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

// Validate checks a JSON report against Schema. It uses santhosh-tekuri/jsonschema, a
// maintained, spec-conformant validator, rather than a hand-written one, so that the
// schema means what the specification says it means to every other consumer. The error
// names each offending location (a JSON pointer) and what is wrong there.
func Validate(jsonDoc []byte) error {
	sch, err := compiled()
	if err != nil {
		return fmt.Errorf("report schema: %w", err) // a bug in schema.json, caught by tests
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(jsonDoc))
	if err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("report does not match schema: %w", err)
	}
	return nil
}
