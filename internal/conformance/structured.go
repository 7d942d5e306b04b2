package conformance

import (
	"encoding/json"
	"strings"

	"github.com/benchserve/benchserve/internal/contract"
	"github.com/benchserve/benchserve/internal/schema"
)

// structured judges structured.json_object and structured.json_schema:
// an answer cut at max_tokens is a skip (the reference: its JSON may be
// partial); else the content is a JSON object (json_object), or valid
// against the schema (json_schema).
func (r *contractRun) structured(st *streamed) Outcome {
	res := st.res
	if res.FinishReason == "length" {
		return skip("the answer was cut at max_tokens, so its JSON cannot be complete (content: %s)", contract.Cut(res.Content, 80))
	}
	if r.kind == contract.JSONSchema {
		return r.jsonSchema(st)
	}
	c := strings.TrimSpace(res.Content)
	if !json.Valid([]byte(c)) {
		return failed(st.sentText(), "content: "+contract.Cut(res.Content, EvidenceRunes), "the content is not JSON")
	}
	// json_object asks for an object: a string, number, list or null is
	// JSON but not what the mode promises.
	var obj map[string]any
	if json.Unmarshal([]byte(c), &obj) != nil || obj == nil {
		return failed(st.sentText(), "content: "+contract.Cut(res.Content, EvidenceRunes), "the content is JSON but not an object")
	}
	return pass("content is a JSON object (%d chars)", len(c))
}

// jsonSchema judges structured.json_schema: the content is valid
// against the case's response_format.json_schema.schema.
func (r *contractRun) jsonSchema(st *streamed) Outcome {
	rf, _ := r.in.ExtraBody["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	sch, ok := js["schema"]
	if !ok {
		return failed("", "", "the case's response_format has no json_schema.schema")
	}
	if err := schema.Validate(sch, st.res.Content); err != nil {
		return failed("", "content: "+contract.Cut(st.res.Content, EvidenceRunes), "the content: %v", err)
	}
	return pass("content valid against the schema")
}
