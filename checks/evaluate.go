package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/results"
)

// CheckResponse is the Issue.Check of the basic validation issue (the
// reference's validate_response message).
const CheckResponse = "response"

// String returns the issue text (Message).
func (i Issue) String() string { return i.Message }

// Validate is the basic validation of one response (reference:
// validate_response). It returns (true, "") or (false, reason) with the
// first failing reason, in this order: "HTTP error N" when StatusCode >=
// 400; "Missing finish_reason" when FinishReason is ""; "Truncated
// (finish_reason=length)"; "Empty response content" when Content is "" and
// there are no tool calls.
//
// Departures, for answers the reference cannot see: when Content is ""
// with no tool calls but Refusal is set, the reason is "refused: <text>"
// (at most refusalPreviewChars code points) instead of "Empty response
// content"; when Reasoning is set instead, it is "the answer was
// reasoning only: N chars of reasoning, no content" (N in code points),
// also appended to a length ending ("Truncated (finish_reason=length):
// the answer was …").
func Validate(r Response) (bool, string) {
	empty := r.Content == "" && len(r.ToolCalls) == 0
	switch {
	case r.StatusCode >= 400:
		return false, fmt.Sprintf("HTTP error %d", r.StatusCode)
	case r.FinishReason == "":
		return false, "Missing finish_reason"
	case r.FinishReason == "length":
		if empty && r.Refusal == "" && r.Reasoning != "" {
			return false, "Truncated (finish_reason=length): " + reasoningOnly(r.Reasoning)
		}
		return false, "Truncated (finish_reason=length)"
	case empty && r.Refusal != "":
		return false, "refused: " + previewRunes(r.Refusal, refusalPreviewChars)
	case empty && r.Reasoning != "":
		return false, reasoningOnly(r.Reasoning)
	case empty:
		return false, "Empty response content"
	}
	return true, ""
}

// refusalPreviewChars bounds the refusal text quoted in a "refused: …"
// issue, in code points.
const refusalPreviewChars = 200

func reasoningOnly(reasoning string) string {
	return fmt.Sprintf("the answer was reasoning only: %d chars of reasoning, no content", utf8.RuneCountInString(reasoning))
}

// previewRunes keeps the first n code points of s, marking a cut with "…".
func previewRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// Evaluate runs the basic validation and then every check of spec against
// r (reference: validate_quality_checks) and returns the failed ones in the
// reference's order: response, finish_reason, min_chars, max_chars,
// required_regex (in pattern order), forbidden_regex, json, no_tool_calls,
// tool_call_count, tool_call_names, tool_call_args_required_keys (in the
// order written). Messages are the reference's issue strings, with Python
// repr for strings and lists. As in the reference, the checks run even when
// the basic validation failed. A nil spec runs only the basic validation.
// It returns nil when everything passed.
//
// One departure from the reference: when spec.FinishReason explicitly
// allows "length", a length ending is not reported as truncated by the
// basic validation.
//
// Content lengths are counted in Unicode code points, as Python's len(str).
// JSON is checked with encoding/json, extended to accept the NaN, Infinity
// and -Infinity tokens that Python's json.loads accepts; the "not valid
// JSON" messages carry encoding/json's error text, not Python's.
func Evaluate(spec *Spec, r Response) []Issue {
	var issues []Issue
	add := func(check, format string, args ...any) {
		issues = append(issues, Issue{Check: check, Message: fmt.Sprintf(format, args...)})
	}
	basic := r
	if spec != nil && r.FinishReason == "length" && contains(spec.FinishReason, "length") {
		// The workload explicitly accepts a capped answer, so the basic
		// validation must not call it truncated (the reference does,
		// which makes finish_reason: ["stop", "length"] unpassable for
		// a length ending). The other basic checks still apply.
		basic.FinishReason = "stop"
	}
	if ok, msg := Validate(basic); !ok {
		add(CheckResponse, "%s", msg)
	}
	if spec == nil {
		return issues
	}

	// A missing finish_reason is Python's None, which no allowed string equals.
	if spec.FinishReason != nil && (r.FinishReason == "" || !contains(spec.FinishReason, r.FinishReason)) {
		add(keyFinishReason, "finish_reason %s not in allowed set %s",
			py.ReprOrNone(r.FinishReason), py.ReprList(spec.FinishReason))
	}

	n := utf8.RuneCountInString(r.Content)
	if spec.MinChars != nil && n < *spec.MinChars {
		add(keyMinChars, "content shorter than min_chars=%d", *spec.MinChars)
	}
	if spec.MaxChars != nil && n > *spec.MaxChars {
		add(keyMaxChars, "content longer than max_chars=%d", *spec.MaxChars)
	}

	for _, kind := range []struct {
		key     string
		pats    []Pattern
		want    bool
		message string
	}{
		{keyRequiredRegex, spec.RequiredRegex, true, "required_regex did not match: %s"},
		{keyForbiddenRegex, spec.ForbiddenRegex, false, "forbidden_regex matched: %s"},
	} {
		for _, p := range kind.pats {
			re := p.Re
			if re == nil { // a hand-built Spec: compile now, as the reference does
				var err error
				if re, err = compilePattern(p.Source); err != nil {
					reason := err.Error()
					if pe, ok := err.(*PatternError); ok {
						reason = pe.Reason
					}
					add(kind.key, "invalid %s %s: %s", kind.key, py.Repr(p.Source), reason)
					continue
				}
			}
			if re.MatchString(r.Content) != kind.want {
				add(kind.key, kind.message, p.Source)
			}
		}
	}

	if spec.JSON {
		if _, err := pyJSONLoads(r.Content); err != nil {
			add(keyJSON, "content is not valid JSON: %v", err)
		}
	}

	if spec.NoToolCalls && len(r.ToolCalls) > 0 {
		add(keyNoToolCalls, "no_tool_calls: expected 0 tool calls, got %d", len(r.ToolCalls))
	}
	if spec.ToolCallCount != nil && len(r.ToolCalls) != *spec.ToolCallCount {
		add(keyToolCallCount, "tool_call_count: expected %d, got %d", *spec.ToolCallCount, len(r.ToolCalls))
	}
	if spec.ToolCallNames != nil {
		actual := make([]string, len(r.ToolCalls))
		for i, tc := range r.ToolCalls {
			actual[i] = tc.Function.Name
		}
		sort.Strings(actual)
		expected := append([]string(nil), spec.ToolCallNames...)
		sort.Strings(expected)
		if !equalStrings(actual, expected) {
			add(keyToolCallNames, "tool_call_names: expected %s, got %s", py.ReprList(expected), py.ReprList(actual))
		}
	}

	issues = append(issues, checkToolCallArgs(spec.ToolCallArgsRequiredKeys, r.ToolCalls)...)
	return issues
}

// checkToolCallArgs ports _check_tool_call_args.
func checkToolCallArgs(required []RequiredKeys, calls []results.ToolCall) []Issue {
	var issues []Issue
	add := func(format string, args ...any) {
		issues = append(issues, Issue{Check: keyToolCallArgsRequiredKeys,
			Message: "tool_call_args_required_keys: " + fmt.Sprintf(format, args...)})
	}
	byName := map[string][]results.ToolCall{}
	for _, tc := range calls {
		byName[tc.Function.Name] = append(byName[tc.Function.Name], tc)
	}
	for _, rk := range required {
		matches := byName[rk.Function]
		if len(matches) == 0 {
			add("no tool call named %s", py.Repr(rk.Function))
			continue
		}
		for _, tc := range matches {
			args := tc.Function.Arguments
			if args == "" {
				args = "{}"
			}
			valid, err := pyJSONLoads(args)
			if err != nil {
				add("%s arguments invalid JSON: %v", rk.Function, err)
				continue
			}
			var obj map[string]json.RawMessage
			if !bytes.HasPrefix(bytes.TrimLeft(valid, " \t\r\n"), []byte("{")) || json.Unmarshal(valid, &obj) != nil {
				add("%s arguments not an object", rk.Function)
				continue
			}
			var missing []string
			for _, k := range rk.Keys {
				if _, ok := obj[k]; !ok {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				add("%s missing keys %s", rk.Function, py.ReprList(missing))
			}
		}
	}
	return issues
}

// pyJSONLoads reports whether s is a JSON document Python's json.loads
// accepts, returning it as standard JSON (NaN, Infinity and -Infinity
// tokens outside strings replaced by 0). The error is the one json.loads
// raises, with its message ("Expecting value: line 1 column 1 (char 0)",
// see pyJSONError).
func pyJSONLoads(s string) (json.RawMessage, error) {
	if err := pyJSONError(s); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	err := json.Unmarshal([]byte(s), &raw)
	if err == nil {
		return raw, nil
	}
	if fixed, changed := replaceNonFinite(s); changed {
		if json.Unmarshal([]byte(fixed), &raw) == nil {
			return raw, nil
		}
	}
	return nil, err
}

// replaceNonFinite replaces the bare tokens NaN and Infinity (outside JSON
// strings) with 0, so "-Infinity" becomes "-0".
func replaceNonFinite(s string) (string, bool) {
	var b bytes.Buffer
	changed, inString := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case hasPrefixAt(s, i, "NaN") && (i == 0 || s[i-1] != '-'):
			b.WriteByte('0')
			i += len("NaN") - 1
			changed = true
		case hasPrefixAt(s, i, "Infinity"):
			b.WriteByte('0')
			i += len("Infinity") - 1
			changed = true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

func hasPrefixAt(s string, i int, p string) bool {
	return len(s)-i >= len(p) && s[i:i+len(p)] == p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
