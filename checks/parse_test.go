package checks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decodeObject(t *testing.T, src string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	var m map[string]any
	require.NoError(t, dec.Decode(&m), "test JSON must decode")
	return m
}

func TestParseSpecFields(t *testing.T) {
	raw := decodeObject(t, `{
		"finish_reason": ["stop", "tool_calls"],
		"required_regex": ["def ", "-> bool"],
		"forbidden_regex": ["TODO"],
		"min_chars": 40, "max_chars": 4000.0,
		"json": false, "no_tool_calls": true,
		"tool_call_count": 0,
		"tool_call_names": [],
		"tool_call_args_required_keys": null
	}`)
	s, err := ParseSpec(raw)
	require.NoError(t, err, "valid spec")
	assert.Equal(t, []string{"stop", "tool_calls"}, s.FinishReason, "finish_reason list")
	require.Len(t, s.RequiredRegex, 2, "two required patterns")
	assert.Equal(t, "-> bool", s.RequiredRegex[1].Source, "pattern source kept")
	assert.True(t, s.RequiredRegex[1].Re.MatchString("x -> bool"), "pattern compiled")
	assert.Equal(t, "TODO", s.ForbiddenRegex[0].Source, "forbidden pattern")
	assert.Equal(t, 40, *s.MinChars, "min_chars from json.Number")
	assert.Equal(t, 4000, *s.MaxChars, "max_chars from an integral float")
	assert.False(t, s.JSON, "json false")
	assert.True(t, s.NoToolCalls, "no_tool_calls")
	assert.Equal(t, 0, *s.ToolCallCount, "tool_call_count 0 is set, not nil")
	assert.Equal(t, []string{}, s.ToolCallNames, "empty tool_call_names means none, not unchecked")
	assert.Nil(t, s.ToolCallArgsRequiredKeys, "null is unset")
	assert.Equal(t, raw, s.Raw, "raw kept")
	assert.Equal(t, []string{"finish_reason", "forbidden_regex", "max_chars", "min_chars", "no_tool_calls", "required_regex", "tool_call_count", "tool_call_names"}, s.Keys(), "active keys")
}

func TestParseSpecFinishReasonString(t *testing.T) {
	s, err := ParseSpec(map[string]any{"finish_reason": "stop", "min_chars": 3, "json": true})
	require.NoError(t, err, "Go ints are accepted")
	assert.Equal(t, []string{"stop"}, s.FinishReason, "a string becomes a one-element set")
	assert.Equal(t, 3, *s.MinChars, "Go int")
	assert.Equal(t, []string{"finish_reason", "json", "min_chars"}, s.Keys(), "keys")
}

func TestParseSpecEmpty(t *testing.T) {
	for _, raw := range []map[string]any{nil, {}} {
		s, err := ParseSpec(raw)
		require.NoError(t, err, "empty spec is valid")
		assert.Empty(t, s.Keys(), "empty spec checks nothing")
		assert.Nil(t, Evaluate(s, Response{StatusCode: 200, FinishReason: "stop", Content: "x"}), "no issues")
	}
	assert.Nil(t, (*Spec)(nil).Keys(), "nil spec has no keys")
}

func TestParseSpecRequiredKeysOrder(t *testing.T) {
	ordered := json.RawMessage(`{"zeta": ["b", "a"], "alpha": ["x"], "zeta": ["c"]}`)
	s, err := ParseSpec(map[string]any{"tool_call_args_required_keys": ordered})
	require.NoError(t, err, "raw JSON object form")
	assert.Equal(t, []RequiredKeys{{"zeta", []string{"c"}}, {"alpha", []string{"x"}}}, s.ToolCallArgsRequiredKeys,
		"written order kept; a duplicate name keeps its first position and its last value, like a Python dict")

	s, err = ParseSpec(map[string]any{"tool_call_args_required_keys": map[string]any{"zeta": []any{"b"}, "alpha": []string{"x"}}})
	require.NoError(t, err, "map form")
	assert.Equal(t, []RequiredKeys{{"alpha", []string{"x"}}, {"zeta", []string{"b"}}}, s.ToolCallArgsRequiredKeys, "map form is ordered by name")

	s, err = ParseSpec(map[string]any{"tool_call_args_required_keys": json.RawMessage(`null`)})
	require.NoError(t, err, "raw null")
	assert.Nil(t, s.ToolCallArgsRequiredKeys, "raw null is unset")
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  map[string]any
		want []string
	}{
		{"unknown key suggests", map[string]any{"min_char": 3}, []string{`checks.min_char: unknown check (did you mean "min_chars"?)`}},
		{"unknown key lists", map[string]any{"colour": "red"}, []string{`checks.colour: unknown check (known checks: finish_reason, forbidden_regex, json, max_chars, min_chars, no_tool_calls, required_regex, tool_call_args_required_keys, tool_call_count, tool_call_names)`}},
		{"unknown null key", map[string]any{"jsn": nil}, []string{`checks.jsn: unknown check (did you mean "json"?)`}},
		{"bad pattern", map[string]any{"required_regex": []any{"ok", "(?<=a)b"}}, []string{`checks.required_regex[1]: invalid pattern "(?<=a)b": lookbehind is not supported`}},
		{"regex not list", map[string]any{"forbidden_regex": "TODO"}, []string{`checks.forbidden_regex: want a list of regex strings, got the string "TODO": the reference would iterate it character by character, checking each character as a pattern; write ["TODO"]`}},
		{"regex element", map[string]any{"required_regex": []any{1.0}}, []string{`checks.required_regex[0]: want a string, got 1`}},
		{"min_chars string", map[string]any{"min_chars": "x"}, []string{`checks.min_chars: want an integer >= 0, got "x"`}},
		{"min_chars negative", map[string]any{"min_chars": json.Number("-1")}, []string{`checks.min_chars: want an integer >= 0, got -1`}},
		{"max_chars fraction", map[string]any{"max_chars": 1.5}, []string{`checks.max_chars: want an integer >= 0, got 1.5`}},
		{"tool_call_count bool", map[string]any{"tool_call_count": true}, []string{`checks.tool_call_count: want an integer >= 0, got true`}},
		{"max below min", map[string]any{"min_chars": 40.0, "max_chars": 10.0}, []string{`checks.max_chars: max_chars 10 is less than min_chars 40, so every response would fail`}},
		{"json not bool", map[string]any{"json": "yes"}, []string{`checks.json: want a boolean, got "yes"`}},
		{"no_tool_calls not bool", map[string]any{"no_tool_calls": 1.0}, []string{`checks.no_tool_calls: want a boolean, got 1`}},
		{"finish_reason number", map[string]any{"finish_reason": 3.0}, []string{`checks.finish_reason: want a string or a list of strings, got 3`}},
		{"finish_reason element", map[string]any{"finish_reason": []any{"stop", nil}}, []string{`checks.finish_reason[1]: want a string, got null`}},
		{"names not list", map[string]any{"tool_call_names": "f"}, []string{`checks.tool_call_names: want a list of strings, got the string "f": the reference would compare the sorted tool names with its single characters; write ["f"]`}},
		{"required keys shape", map[string]any{"tool_call_args_required_keys": []any{"city"}}, []string{`checks.tool_call_args_required_keys: want an object mapping function names to lists of argument keys, got ["city"]`}},
		{"required keys raw shape", map[string]any{"tool_call_args_required_keys": json.RawMessage(`[ "city" ]`)}, []string{`checks.tool_call_args_required_keys: want an object mapping function names to lists of argument keys, got ["city"]`}},
		{"required keys value", map[string]any{"tool_call_args_required_keys": json.RawMessage(`{"f": "city", "g": ["a", 2]}`)}, []string{
			`checks.tool_call_args_required_keys.f: want a list of strings, got "city"`,
			`checks.tool_call_args_required_keys.g[1]: want a string, got 2`,
		}},
		{"long value shortened", map[string]any{"json": strings.Repeat("x", 100)}, []string{`checks.json: want a boolean, got "` + strings.Repeat("x", 59) + `…`}},
		{"several, in key order", map[string]any{"min_chars": "x", "json": 1.0, "required_regex": []any{"(a)\\1"}}, []string{
			`checks.json: want a boolean, got 1`,
			`checks.min_chars: want an integer >= 0, got "x"`,
			`checks.required_regex[0]: invalid pattern "(a)\\1": backreferences are not supported`,
		}},
	} {
		s, err := ParseSpec(tc.raw)
		assert.Nilf(t, s, "%s: no spec on error", tc.name)
		require.Errorf(t, err, "%s: must fail", tc.name)
		assert.Equalf(t, strings.Join(tc.want, "\n"), err.Error(), "%s: joined message", tc.name)
		joined, ok := err.(interface{ Unwrap() []error })
		require.Truef(t, ok, "%s: error is an errors.Join", tc.name)
		for _, e := range joined.Unwrap() {
			var se *SpecError
			assert.Truef(t, errors.As(e, &se), "%s: each problem is a *SpecError, got %T", tc.name, e)
		}
	}
}

func TestParseSpecPatternErrorReachable(t *testing.T) {
	_, err := ParseSpec(map[string]any{"required_regex": []any{"(?=x)"}})
	var pe *PatternError
	require.True(t, errors.As(err, &pe), "the *PatternError is reachable through the joined error")
	assert.Equal(t, "lookahead is not supported", pe.Reason, "reason")
	var se *SpecError
	require.True(t, errors.As(err, &se), "the *SpecError is reachable")
	assert.Equal(t, "checks.required_regex[0]", se.Field, "field path")
}

// An unknown check key gets the known key it is a typo of.
func TestUnknownCheckSuggests(t *testing.T) {
	_, err := ParseSpec(map[string]any{"min_char": 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "min_chars"`, "the typo's suggestion")
}
