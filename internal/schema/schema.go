// Package schema compiles and applies the JSON Schemas a workload case
// carries (a tool's parameters, a json_schema response format) with
// santhosh-tekuri/jsonschema: the loader checks that they compile, the
// conformance judge validates answers against them.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/benchserve/benchserve/internal/contract"
)

// Validate checks that text is JSON valid against schema (a decoded JSON
// Schema object; draft 2020-12 unless the schema's $schema says
// otherwise). The error names the first violations in the library's
// words.
func Validate(schema any, text string) error {
	sch, err := compile(schema)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.TrimSpace(text)))
	if err != nil {
		return fmt.Errorf("not JSON: %w (%s)", err, contract.Cut(text, 80))
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not valid against the schema: %s", contract.Cut(strings.Join(strings.Fields(err.Error()), " "), 300))
	}
	return nil
}

// Compiles reports why a decoded JSON Schema object does not compile,
// nil when it does.
func Compiles(schema any) error {
	_, err := compile(schema)
	return err
}

// compile compiles a decoded JSON Schema object.
func compile(schema any) (*jsonschema.Schema, error) {
	// Round-trip through JSON: the library wants json.Number, not float64.
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("the schema does not encode: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	const url = "benchserve://conformance/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("the schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %s", contract.Cut(strings.Join(strings.Fields(err.Error()), " "), 200))
	}
	return sch, nil
}
