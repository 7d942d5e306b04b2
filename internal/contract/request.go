package contract

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// AsInt reads a whole number decoded from JSON (float64 or
// json.Number); false for anything else.
func AsInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	}
	return 0, false
}

// Describe renders a value for "got …" messages: its JSON, cut to 60
// characters.
func Describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return Cut(string(b), 60)
}

// Cut returns s cut to at most n characters (code points), with "…"
// when it was longer; it never splits a character.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// StopStrings is a request's "stop": one string or a list of them, empty
// ones left out ("stop": "" stops nothing); nil for anything else. The
// fixture server and the contract judge both read "stop" through it.
func StopStrings(v any) []string {
	switch s := v.(type) {
	case string:
		if s != "" {
			return []string{s}
		}
	case []any:
		var out []string
		for _, x := range s {
			if str, ok := x.(string); ok && str != "" {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// NamedChoice is the function a tool_choice object names
// ({"type": "function", "function": {"name": …}}), "" when none.
func NamedChoice(v any) string {
	m, _ := v.(map[string]any)
	fn, _ := m["function"].(map[string]any)
	s, _ := fn["name"].(string)
	return s
}

// ToolSchemas maps each tool of a request's "tools" to its parameters
// schema ({} when it has none).
func ToolSchemas(v any) map[string]any {
	out := map[string]any{}
	list, _ := v.([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		name, _ := fn["name"].(string)
		if name == "" {
			continue
		}
		params := fn["parameters"]
		if params == nil {
			params = map[string]any{}
		}
		out[name] = params
	}
	return out
}
