package checks

import (
	"testing"

	"github.com/benchserve/benchserve/results"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustSpec(t *testing.T, raw map[string]any) *Spec {
	t.Helper()
	s, err := ParseSpec(raw)
	require.NoError(t, err, "test spec must parse")
	return s
}

func call(name, args string) results.ToolCall {
	return results.ToolCall{ID: "call_" + name, Type: "function", Function: results.FunctionCall{Name: name, Arguments: args}}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Response
		ok   bool
		msg  string
	}{
		{"ok", Response{StatusCode: 200, FinishReason: "stop", Content: "hi"}, true, ""},
		{"tool calls only", Response{StatusCode: 200, FinishReason: "tool_calls", ToolCalls: []results.ToolCall{call("f", "{}")}}, true, ""},
		{"http error first", Response{StatusCode: 503, FinishReason: "", Content: ""}, false, "HTTP error 503"},
		{"http 400", Response{StatusCode: 400, FinishReason: "stop", Content: "x"}, false, "HTTP error 400"},
		{"missing finish", Response{StatusCode: 200, Content: "x"}, false, "Missing finish_reason"},
		{"length", Response{StatusCode: 200, FinishReason: "length", Content: "x"}, false, "Truncated (finish_reason=length)"},
		{"empty", Response{StatusCode: 200, FinishReason: "stop"}, false, "Empty response content"},
	} {
		ok, msg := Validate(tc.r)
		assert.Equalf(t, tc.ok, ok, "%s: ok", tc.name)
		assert.Equalf(t, tc.msg, msg, "%s: message", tc.name)
	}
}

// The wanted issue strings were produced by running the reference
// validate_quality_checks on the same inputs under CPython 3.11 (except the
// JSON error texts, which are encoding/json's by design).
func TestEvaluate(t *testing.T) {
	ok := Response{StatusCode: 200, FinishReason: "stop", Content: "def is_palindrome(s: str) -> bool: ..."}
	for _, tc := range []struct {
		name string
		spec map[string]any
		r    Response
		want []Issue
	}{
		{"nil spec passes", nil, ok, nil},
		{"all pass", map[string]any{
			"finish_reason": "stop", "required_regex": []any{"def ", "-> bool"}, "forbidden_regex": []any{"TODO"},
			"min_chars": 10.0, "max_chars": 100.0, "no_tool_calls": true, "tool_call_count": 0.0, "tool_call_names": []any{},
		}, ok, nil},
		{"basic failure still runs checks", map[string]any{"min_chars": 5.0}, Response{StatusCode: 200, FinishReason: "stop"}, []Issue{
			{"response", "Empty response content"},
			{"min_chars", "content shorter than min_chars=5"},
		}},
		{"missing finish_reason is None", map[string]any{"finish_reason": []any{"stop", "length"}}, Response{StatusCode: 200, Content: "hi"}, []Issue{
			{"response", "Missing finish_reason"},
			{"finish_reason", "finish_reason None not in allowed set ['stop', 'length']"},
		}},
		{"finish_reason and max_chars", map[string]any{"finish_reason": "stop", "max_chars": 5.0}, Response{StatusCode: 200, FinishReason: "length", Content: "xxxxxxxxxx"}, []Issue{
			{"response", "Truncated (finish_reason=length)"},
			{"finish_reason", "finish_reason 'length' not in allowed set ['stop']"},
			{"max_chars", "content longer than max_chars=5"},
		}},
		{"length counts code points", map[string]any{"min_chars": 4.0, "max_chars": 4.0}, Response{StatusCode: 200, FinishReason: "stop", Content: "été!"}, nil},
		{"min_chars 80", map[string]any{"min_chars": 80.0}, ok, []Issue{{"min_chars", "content shorter than min_chars=80"}}},
		{"regexes", map[string]any{"required_regex": []any{"def ", "abc"}, "forbidden_regex": []any{"TODO", "b"}}, Response{StatusCode: 500, FinishReason: "stop", Content: "abc"}, []Issue{
			{"response", "HTTP error 500"},
			{"required_regex", "required_regex did not match: def "},
			{"forbidden_regex", "forbidden_regex matched: b"},
		}},
		{"forbidden TODO", map[string]any{"forbidden_regex": []any{"<think>", "TODO"}}, Response{StatusCode: 200, FinishReason: "stop", Content: "x # TODO"}, []Issue{
			{"forbidden_regex", "forbidden_regex matched: TODO"},
		}},
		{"multiline anchors", map[string]any{"required_regex": []any{"^def ", "bool:$"}}, Response{StatusCode: 200, FinishReason: "stop", Content: "Here:\ndef f() -> bool:\n    pass"}, nil},
		{"json invalid", map[string]any{"json": true}, Response{StatusCode: 200, FinishReason: "stop", Content: "not json"}, []Issue{
			{"json", "content is not valid JSON: Expecting value: line 1 column 1 (char 0)"},
		}},
		{"json valid", map[string]any{"json": true}, Response{StatusCode: 200, FinishReason: "stop", Content: " {\"a\": [1, 2e400]} \n"}, nil},
		{"json python extensions", map[string]any{"json": true}, Response{StatusCode: 200, FinishReason: "stop", Content: `{"a": NaN, "b": -Infinity, "c": "NaN"}`}, nil},
		{"json -NaN rejected like python", map[string]any{"json": true}, Response{StatusCode: 200, FinishReason: "stop", Content: `-NaN`}, []Issue{
			{"json", "content is not valid JSON: Expecting value: line 1 column 1 (char 0)"},
		}},
		{"json false does nothing", map[string]any{"json": false}, Response{StatusCode: 200, FinishReason: "stop", Content: "x"}, nil},
		{"no tool calls", map[string]any{"no_tool_calls": true},
			Response{StatusCode: 200, FinishReason: "tool_calls", ToolCalls: []results.ToolCall{call("a", "{}"), call("a", "{}")}}, []Issue{
				{"no_tool_calls", "no_tool_calls: expected 0 tool calls, got 2"},
			}},
		{"tool call count and names", map[string]any{"tool_call_count": 1.0, "tool_call_names": []any{"b", "a"}},
			Response{StatusCode: 200, FinishReason: "tool_calls", ToolCalls: []results.ToolCall{call("a", "{}"), call("a", "{}")}}, []Issue{
				{"tool_call_count", "tool_call_count: expected 1, got 2"},
				{"tool_call_names", "tool_call_names: expected ['a', 'b'], got ['a', 'a']"},
			}},
		{"tool_call_count zero calls", map[string]any{"tool_call_count": 1.0, "tool_call_names": []any{"a", "b"}},
			Response{StatusCode: 200, FinishReason: "stop", Content: "x", ToolCalls: []results.ToolCall{call("a", "")}}, []Issue{
				{"tool_call_names", "tool_call_names: expected ['a', 'b'], got ['a']"},
			}},
		{"tool_call_count expected 1 got 0", map[string]any{"tool_call_count": 1.0}, ok, []Issue{
			{"tool_call_count", "tool_call_count: expected 1, got 0"},
		}},
		{"tool names order independent", map[string]any{"tool_call_names": []any{"b", "a"}},
			Response{StatusCode: 200, FinishReason: "tool_calls", ToolCalls: []results.ToolCall{call("a", "{}"), call("b", "{}")}}, nil},
		{"required keys", map[string]any{"tool_call_args_required_keys": []RequiredKeys{
			{"get_weather", []string{"city", "unit"}}, {"search", []string{"q"}}, {"other", []string{"x"}}, {"lst", []string{"x"}}, {"ok", []string{"a"}},
		}}, Response{StatusCode: 200, FinishReason: "tool_calls", ToolCalls: []results.ToolCall{
			call("get_weather", `{"unit":"c"}`), call("search", "{bad"), call("lst", "[1]"), call("get_weather", ""), call("ok", `{"a": NaN}`),
		}}, []Issue{
			{"tool_call_args_required_keys", "tool_call_args_required_keys: get_weather missing keys ['city']"},
			{"tool_call_args_required_keys", "tool_call_args_required_keys: get_weather missing keys ['city', 'unit']"},
			{"tool_call_args_required_keys", "tool_call_args_required_keys: search arguments invalid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
			{"tool_call_args_required_keys", "tool_call_args_required_keys: no tool call named 'other'"},
			{"tool_call_args_required_keys", "tool_call_args_required_keys: lst arguments not an object"},
		}},
		{"required keys no call", map[string]any{"tool_call_args_required_keys": map[string]any{"get_weather": []any{"city"}}}, ok, []Issue{
			{"tool_call_args_required_keys", "tool_call_args_required_keys: no tool call named 'get_weather'"},
		}},
	} {
		var spec *Spec
		if tc.spec != nil {
			spec = mustSpec(t, tc.spec)
		}
		assert.Equalf(t, tc.want, Evaluate(spec, tc.r), "%s: issues", tc.name)
	}
}

func TestEvaluateHandBuiltSpecCompilesLazily(t *testing.T) {
	spec := &Spec{
		RequiredRegex:  []Pattern{{Source: "a.c"}},
		ForbiddenRegex: []Pattern{{Source: "(?<=a)b"}},
	}
	got := Evaluate(spec, Response{StatusCode: 200, FinishReason: "stop", Content: "abc"})
	assert.Equal(t, []Issue{{"forbidden_regex", "invalid forbidden_regex '(?<=a)b': lookbehind is not supported"}}, got,
		"an uncompiled pattern is compiled on use and a bad one is reported like the reference's re.error")
}

func TestIssueString(t *testing.T) {
	assert.Equal(t, "content shorter than min_chars=80", Issue{Check: "min_chars", Message: "content shorter than min_chars=80"}.String(), "String is the message")
}

// TestEvaluateExplicitLengthIsNotTruncation: a workload that lists
// "length" among the allowed finish reasons accepts capped answers; the
// reference would still report "Truncated", making such a check
// unpassable. Other basic failures still count.
func TestEvaluateExplicitLengthIsNotTruncation(t *testing.T) {
	allowLength := mustSpec(t, map[string]any{"finish_reason": []any{"stop", "length"}})
	capped := Response{StatusCode: 200, FinishReason: "length", Content: "a capped answer"}
	assert.Nil(t, Evaluate(allowLength, capped), "length explicitly allowed: no issue")

	stopOnly := mustSpec(t, map[string]any{"finish_reason": "stop"})
	assert.Equal(t, []Issue{
		{Check: CheckResponse, Message: "Truncated (finish_reason=length)"},
		{Check: keyFinishReason, Message: "finish_reason 'length' not in allowed set ['stop']"},
	}, Evaluate(stopOnly, capped), "not allowed: reference behaviour")
	assert.Equal(t, []Issue{{Check: CheckResponse, Message: "Truncated (finish_reason=length)"}},
		Evaluate(mustSpec(t, map[string]any{"min_chars": 1.0}), capped), "no finish_reason check: reference behaviour")

	empty := Response{StatusCode: 200, FinishReason: "length"}
	assert.Equal(t, []Issue{{Check: CheckResponse, Message: "Empty response content"}}, Evaluate(allowLength, empty),
		"an empty capped answer is still empty")
}

// TestEvaluateHandBuiltEmptyFinishReason: ParseSpec refuses "" as a
// finish reason; a hand-built Spec with it behaves as the reference does
// (a missing finish_reason, Python's None, never equals "").
func TestEvaluateHandBuiltEmptyFinishReason(t *testing.T) {
	got := Evaluate(&Spec{FinishReason: []string{""}}, Response{StatusCode: 200, Content: "hi"})
	assert.Equal(t, []Issue{
		{"response", "Missing finish_reason"},
		{"finish_reason", "finish_reason None not in allowed set ['']"},
	}, got)
}

// TestParseSpecRejectsUnpassableChecks: checks no response can pass are
// load errors, not a run full of failures.
func TestParseSpecRejectsUnpassableChecks(t *testing.T) {
	for _, tc := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"finish_reason": []any{}}, "checks.finish_reason: an empty list allows no finish reason"},
		{map[string]any{"finish_reason": ""}, `checks.finish_reason: "" is not a finish reason`},
		{map[string]any{"finish_reason": []any{"stop", ""}}, `checks.finish_reason: "" is not a finish reason`},
		{map[string]any{"no_tool_calls": true, "tool_call_count": 1.0}, "checks.no_tool_calls: no_tool_calls contradicts tool_call_count=1"},
		{map[string]any{"no_tool_calls": true, "tool_call_names": []any{"f"}}, "checks.no_tool_calls: no_tool_calls contradicts tool_call_names ['f']"},
	} {
		_, err := ParseSpec(tc.raw)
		require.Error(t, err, "%v must be rejected", tc.raw)
		assert.Contains(t, err.Error(), tc.want)
	}
	_, err := ParseSpec(map[string]any{"no_tool_calls": true, "tool_call_count": 0.0, "tool_call_names": []any{}})
	assert.NoError(t, err, "consistent: no calls three ways")
}
