package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/benchserve/benchserve/internal/py"
	"github.com/benchserve/benchserve/internal/suggest"
)

// Check keys understood by ParseSpec (the reference's validate_quality_checks
// docstring lists the same ten, min_chars and max_chars in one bullet).
const (
	keyFinishReason             = "finish_reason"
	keyRequiredRegex            = "required_regex"
	keyForbiddenRegex           = "forbidden_regex"
	keyMinChars                 = "min_chars"
	keyMaxChars                 = "max_chars"
	keyJSON                     = "json"
	keyToolCallCount            = "tool_call_count"
	keyToolCallNames            = "tool_call_names"
	keyToolCallArgsRequiredKeys = "tool_call_args_required_keys"
	keyNoToolCalls              = "no_tool_calls"
)

// knownKeys is every check key, sorted.
var knownKeys = []string{
	keyFinishReason, keyForbiddenRegex, keyJSON, keyMaxChars, keyMinChars,
	keyNoToolCalls, keyRequiredRegex, keyToolCallArgsRequiredKeys,
	keyToolCallCount, keyToolCallNames,
}

// SpecError is one problem ParseSpec found. Field is the path of the value
// inside the checks object, always starting with "checks." (for example
// "checks.required_regex[1]" or "checks.tool_call_args_required_keys.f[0]");
// Err says what is wrong (a *PatternError for bad regexes).
type SpecError struct {
	Field string
	Err   error
}

// Error returns "Field: Err".
func (e *SpecError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *SpecError) Unwrap() error { return e.Err }

// ParseSpec validates a merged checks object and compiles its patterns
// (the reference validates lazily while checking; we fail at load time).
// raw is what encoding/json decodes an object into: numbers may be float64
// or json.Number (Go ints are accepted too), lists []any (or []string).
// A key whose value is JSON null is treated as absent, as the reference's
// checks.get(...) is None test does. A nil or empty raw gives a Spec that
// checks nothing (only the basic validation in Evaluate).
//
// Accepted shapes: finish_reason a string or list of strings;
// required_regex, forbidden_regex and tool_call_names lists of strings;
// min_chars, max_chars and tool_call_count integers >= 0 (integral floats
// such as 40.0 are accepted); json and no_tool_calls booleans;
// tool_call_args_required_keys an object mapping function names to lists
// of key strings.
//
// Order of tool_call_args_required_keys: a Go map has none, and the
// reference reports issues in the order the object was written. Pass the
// value as json.RawMessage (the object's JSON text) to keep that order;
// package workload does. A map[string]any value is accepted too and is then
// ordered by function name. A []RequiredKeys value is used as given.
//
// The error joins (errors.Join) one *SpecError per problem, in key order:
// unknown keys (with a suggestion), wrong types, invalid patterns, and
// max_chars < min_chars. Spec.Raw is raw itself (not copied).
func ParseSpec(raw map[string]any) (*Spec, error) {
	s := &Spec{Raw: raw}
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, &SpecError{Field: "checks." + field, Err: fmt.Errorf(format, args...)})
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := raw[key]
		if v == nil {
			if !isKnownKey(key) {
				bad(key, "%s", unknownKeyMessage(key))
			}
			continue
		}
		switch key {
		case keyFinishReason:
			if str, ok := v.(string); ok {
				s.FinishReason = []string{str}
				continue
			}
			list, ok := asList(v)
			if !ok {
				bad(key, "want a string or a list of strings, got %s", describe(v))
				continue
			}
			s.FinishReason = stringList(list, key, bad)
		case keyRequiredRegex, keyForbiddenRegex:
			list, ok := asList(v)
			if !ok {
				if str, isStr := v.(string); isStr {
					bad(key, "want a list of regex strings, got the string %s: the reference would iterate it character by character, checking each character as a pattern; write [%s]", describe(v), describe(str))
					continue
				}
				bad(key, "want a list of regex strings, got %s", describe(v))
				continue
			}
			pats := make([]Pattern, 0, len(list))
			for i, item := range list {
				src, ok := item.(string)
				if !ok {
					bad(fmt.Sprintf("%s[%d]", key, i), "want a string, got %s", describe(item))
					continue
				}
				re, err := compilePattern(src)
				if err != nil {
					errs = append(errs, &SpecError{Field: fmt.Sprintf("checks.%s[%d]", key, i), Err: err})
					continue
				}
				pats = append(pats, Pattern{Source: src, Re: re})
			}
			if key == keyRequiredRegex {
				s.RequiredRegex = pats
			} else {
				s.ForbiddenRegex = pats
			}
		case keyMinChars, keyMaxChars, keyToolCallCount:
			n, ok := asInt(v)
			if !ok || n < 0 {
				bad(key, "want an integer >= 0, got %s", describe(v))
				continue
			}
			switch key {
			case keyMinChars:
				s.MinChars = &n
			case keyMaxChars:
				s.MaxChars = &n
			default:
				s.ToolCallCount = &n
			}
		case keyJSON, keyNoToolCalls:
			b, ok := v.(bool)
			if !ok {
				bad(key, "want a boolean, got %s", describe(v))
				continue
			}
			if key == keyJSON {
				s.JSON = b
			} else {
				s.NoToolCalls = b
			}
		case keyToolCallNames:
			list, ok := asList(v)
			if !ok {
				if str, isStr := v.(string); isStr {
					bad(key, "want a list of strings, got the string %s: the reference would compare the sorted tool names with its single characters; write [%s]", describe(v), describe(str))
					continue
				}
				bad(key, "want a list of strings, got %s", describe(v))
				continue
			}
			s.ToolCallNames = stringList(list, key, bad)
		case keyToolCallArgsRequiredKeys:
			s.ToolCallArgsRequiredKeys = parseRequiredKeys(v, bad)
		default:
			bad(key, "%s", unknownKeyMessage(key))
		}
	}
	if s.MinChars != nil && s.MaxChars != nil && *s.MaxChars < *s.MinChars {
		bad(keyMaxChars, "max_chars %d is less than min_chars %d, so every response would fail", *s.MaxChars, *s.MinChars)
	}
	// Checks no response can pass are workload bugs, reported at load time.
	if s.FinishReason != nil && len(s.FinishReason) == 0 {
		bad(keyFinishReason, "an empty list allows no finish reason, so every response would fail")
	}
	for _, fr := range s.FinishReason {
		if fr == "" {
			bad(keyFinishReason, `"" is not a finish reason (a missing one never passes); use "stop", "length", "tool_calls", …`)
			break
		}
	}
	if s.NoToolCalls && s.ToolCallCount != nil && *s.ToolCallCount > 0 {
		bad(keyNoToolCalls, "no_tool_calls contradicts tool_call_count=%d, so every response would fail", *s.ToolCallCount)
	}
	if s.NoToolCalls && len(s.ToolCallNames) > 0 {
		bad(keyNoToolCalls, "no_tool_calls contradicts tool_call_names %s, so every response would fail", py.ReprList(s.ToolCallNames))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Keys returns the keys of the checks this Spec enforces, sorted: a key is
// listed when its field is set (and, for json and no_tool_calls, true).
// Handy for naming subtests.
func (s *Spec) Keys() []string {
	if s == nil {
		return nil
	}
	var keys []string
	add := func(set bool, key string) {
		if set {
			keys = append(keys, key)
		}
	}
	add(s.FinishReason != nil, keyFinishReason)
	add(len(s.ForbiddenRegex) > 0, keyForbiddenRegex)
	add(s.JSON, keyJSON)
	add(s.MaxChars != nil, keyMaxChars)
	add(s.MinChars != nil, keyMinChars)
	add(s.NoToolCalls, keyNoToolCalls)
	add(len(s.RequiredRegex) > 0, keyRequiredRegex)
	add(len(s.ToolCallArgsRequiredKeys) > 0, keyToolCallArgsRequiredKeys)
	add(s.ToolCallCount != nil, keyToolCallCount)
	add(s.ToolCallNames != nil, keyToolCallNames)
	return keys
}

func isKnownKey(k string) bool {
	i := sort.SearchStrings(knownKeys, k)
	return i < len(knownKeys) && knownKeys[i] == k
}

func unknownKeyMessage(key string) string {
	if s := suggest.Closest(key, knownKeys); s != "" {
		return fmt.Sprintf("unknown check (did you mean %q?)", s)
	}
	return "unknown check (known checks: " + strings.Join(knownKeys, ", ") + ")"
}

func stringList(list []any, key string, bad func(string, string, ...any)) []string {
	out := make([]string, 0, len(list))
	for i, item := range list {
		str, ok := item.(string)
		if !ok {
			bad(fmt.Sprintf("%s[%d]", key, i), "want a string, got %s", describe(item))
			continue
		}
		out = append(out, str)
	}
	return out
}

func parseRequiredKeys(v any, bad func(string, string, ...any)) []RequiredKeys {
	const key = keyToolCallArgsRequiredKeys
	const want = "want an object mapping function names to lists of argument keys, got %s"
	var out []RequiredKeys
	add := func(name string, keys any) {
		list, ok := asList(keys)
		if !ok {
			bad(key+"."+name, "want a list of strings, got %s", describe(keys))
			return
		}
		entry := RequiredKeys{Function: name, Keys: stringList(list, key+"."+name, bad)}
		for i := range out {
			if out[i].Function == name { // JSON duplicate: last value, first position
				out[i] = entry
				return
			}
		}
		out = append(out, entry)
	}
	switch m := v.(type) {
	case []RequiredKeys:
		return m
	case map[string]any:
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			add(name, m[name])
		}
	case json.RawMessage:
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.UseNumber()
		tok, err := dec.Token()
		if err != nil {
			bad(key, "invalid JSON: %v", err)
			return nil
		}
		if tok == nil {
			return nil
		}
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			bad(key, want, describe(m))
			return nil
		}
		for dec.More() {
			nameTok, err := dec.Token()
			if err != nil {
				bad(key, "invalid JSON: %v", err)
				return nil
			}
			var val any
			if err := dec.Decode(&val); err != nil {
				bad(key, "invalid JSON: %v", err)
				return nil
			}
			add(nameTok.(string), val)
		}
		if out == nil {
			out = []RequiredKeys{}
		}
	default:
		bad(key, want, describe(v))
	}
	return out
}

// asInt accepts integral numbers as decoded by encoding/json (float64 or
// json.Number) or written by Go callers.
func asInt(v any) (int, bool) {
	var f float64
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		f = float64(n)
	case float64:
		f = n
	case json.Number:
		if i, err := n.Int64(); err == nil {
			f = float64(i)
			break
		}
		x, err := n.Float64()
		if err != nil {
			return 0, false
		}
		f = x
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || f > math.MaxInt32 || f < math.MinInt32 {
		return 0, false
	}
	return int(f), true
}

// describe renders a value for "got ..." in error messages: its JSON text,
// shortened to 60 bytes.
func describe(v any) string {
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		var buf bytes.Buffer
		if json.Compact(&buf, x) == nil {
			b = buf.Bytes()
		} else {
			b = x
		}
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return fmt.Sprintf("%v", v)
		}
	}
	const limit = 60
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
