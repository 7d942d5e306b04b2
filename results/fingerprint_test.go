package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A tool call's name and sorted argument keys, JSON validity for a JSON
// request and greedy content are kept; ids, timings and usage are not.
func TestFingerprint(t *testing.T) {
	stop := "tool_calls"
	rec := Record{
		RunID: "run-1", Timestamp: "2026-12-03T10:00:00Z", CaseID: "c", Outcome: Outcome("pass"),
		Request: RequestInfo{ExtraBody: map[string]any{
			"temperature": json.Number("0"), "seed": json.Number("3"),
			"response_format": map[string]any{"type": "json_object"}}},
		Metrics: Metrics{TTFTms: 12.5, CompletionTokens: 9},
		Quality: Quality{FinishReason: &stop, ContentPreview: `{"a":`},
		ToolCalls: &ToolCallsSummary{Count: 1, Names: []string{"get_weather"}, Raw: []ToolCall{
			{ID: "call_9", Type: "function", Function: FunctionCall{Name: "get_weather", Arguments: `{"unit":"c","city":"Oslo"}`}}}},
	}
	got, err := json.Marshal(rec.Fingerprint([]string{"json_schema"}))
	assert.NoError(t, err)
	assert.JSONEq(t, `{"outcome":"pass","finish_reason":"tool_calls","checks_failed":["json_schema"],"request_error":false,
		"tool_calls":[{"name":"get_weather","argument_keys":["city","unit"],"arguments_json":true}],
		"json_valid":false,"content":"{\"a\":"}`, string(got), "the fingerprint of a greedy JSON tool-calling case")

	rec.Request.ExtraBody = map[string]any{"temperature": 0.7, "seed": 3.0}
	got, err = json.Marshal(rec.Fingerprint(nil))
	assert.NoError(t, err)
	assert.NotContains(t, string(got), "content", "a sampled case's content is left out")
	assert.NotContains(t, string(got), "json_valid", "json_valid only when the request asked for JSON")
	assert.Contains(t, string(got), `"checks_failed":[]`, "no failed checks reads as an empty list, not null")

	long := `{"a":"` + strings.Repeat("x", 300) + `"}`
	rec = Record{Request: RequestInfo{ExtraBody: map[string]any{"response_format": map[string]any{"type": "json_object"}}},
		Quality: Quality{ContentChars: len(long), ContentPreview: long[:240]}}
	assert.Nil(t, rec.Fingerprint(nil)["json_valid"], "a preview of a longer answer cannot say whether it parses")
	rec.Quality.Content = &long
	assert.Equal(t, true, rec.Fingerprint(nil)["json_valid"], "the whole content can")
	rec.Quality = Quality{ContentChars: 7, ContentPreview: `{"a":1}`}
	assert.Equal(t, true, rec.Fingerprint(nil)["json_valid"], "a short answer's preview is the whole answer")

	c := Record{CaseID: "x", Contract: &Contract{Name: "stream.framing", Level: "MUST", Verdict: "pass"}, Metrics: Metrics{TTFTms: 3}}
	got, err = json.Marshal(c.Fingerprint(nil))
	assert.NoError(t, err)
	assert.JSONEq(t, `{"contract":"stream.framing","level":"MUST","verdict":"pass"}`, string(got), "a contract's fingerprint is its verdict")
}

// Greedy needs temperature 0 and a seed, as decoded from a workload
// (json.Number) or from a payload (float64).
func TestRecordGreedy(t *testing.T) {
	for _, tc := range []struct {
		body map[string]any
		want bool
	}{
		{map[string]any{"temperature": 0.0, "seed": 1.0}, true},
		{map[string]any{"temperature": json.Number("0"), "seed": json.Number("1")}, true},
		{map[string]any{"temperature": 0, "seed": 1}, true},
		{map[string]any{"temperature": uint(0), "seed": uint64(1)}, true},
		{map[string]any{"temperature": float32(0), "seed": int8(1)}, true},
		{map[string]any{"temperature": 0.0, "seed": nil}, false},
		{map[string]any{"temperature": "0", "seed": 1}, false},
		{map[string]any{"temperature": 0.0}, false},
		{map[string]any{"temperature": 0.2, "seed": 1.0}, false},
		{map[string]any{"seed": 1.0}, false},
		{nil, false},
	} {
		assert.Equalf(t, tc.want, Record{Request: RequestInfo{ExtraBody: tc.body}}.Greedy(), "extra_body %v", tc.body)
	}
}
