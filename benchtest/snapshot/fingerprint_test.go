package snapshot

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchserve/benchserve/results"
)

// A tool call's name and sorted argument keys, JSON validity for a JSON
// request and greedy content are kept; ids, timings and usage are not.
func TestFingerprint(t *testing.T) {
	stop := "tool_calls"
	rec := results.Record{
		RunID: "run-1", Timestamp: "2026-12-03T10:00:00Z", CaseID: "c", Outcome: results.Outcome("pass"),
		Request: results.RequestInfo{ExtraBody: map[string]any{
			"temperature": json.Number("0"), "seed": json.Number("3"),
			"response_format": map[string]any{"type": "json_object"}}},
		Metrics: results.Metrics{TTFTms: 12.5, CompletionTokens: 9},
		Quality: results.Quality{FinishReason: &stop, ContentPreview: `{"a":`},
		ToolCalls: &results.ToolCallsSummary{Count: 1, Names: []string{"get_weather"}, Raw: []results.ToolCall{
			{ID: "call_9", Type: "function", Function: results.FunctionCall{Name: "get_weather", Arguments: `{"unit":"c","city":"Oslo"}`}}}},
	}
	got, err := json.Marshal(fingerprint(rec, []string{"json_schema"}))
	assert.NoError(t, err)
	assert.JSONEq(t, `{"outcome":"pass","finish_reason":"tool_calls","checks_failed":["json_schema"],"request_error":false,
		"tool_calls":[{"name":"get_weather","argument_keys":["city","unit"],"arguments_json":true}],
		"json_valid":false,"content":"{\"a\":"}`, string(got), "the fingerprint of a greedy JSON tool-calling case")

	rec.Request.ExtraBody = map[string]any{"temperature": 0.7, "seed": 3.0}
	got, err = json.Marshal(fingerprint(rec, []string{}))
	assert.NoError(t, err)
	assert.NotContains(t, string(got), "content", "a sampled case's content is left out")
	assert.NotContains(t, string(got), "json_valid", "json_valid only when the request asked for JSON")
}
