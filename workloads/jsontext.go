package workloads

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// decodeJSON decodes one JSON document with numbers as json.Number;
// syntax errors carry the line and column.
func decodeJSON(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := se.Offset
			if off > 0 && int(off) < len(data) || strings.HasPrefix(se.Error(), "invalid character") {
				off-- // the offset is just past the offending byte; at EOF it is the end
			}
			line, col := position(data, off)
			return nil, fmt.Errorf("invalid JSON at line %d, column %d: %w", line, col, err)
		}
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return v, nil
}

// position converts a byte offset to a 1-based line and column (in
// characters).
func position(data []byte, offset int64) (line, col int) {
	off := max(int(offset), 0)
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + utf8.RuneCount(before[lineStart:])
	return line, col
}

// orderedKeys holds the raw JSON of every checks.tool_call_args_required_keys.
type orderedKeys struct {
	defaults json.RawMessage
	cases    []json.RawMessage
}

// orderedRequiredKeys extracts the raw text of each
// tool_call_args_required_keys object so its key order survives (a Go map
// loses it). Shape errors are ignored here; the main pass reports them.
func orderedRequiredKeys(data []byte) orderedKeys {
	var out orderedKeys
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return out
	}
	fromChecks := func(obj json.RawMessage) json.RawMessage {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil {
			return nil
		}
		var c map[string]json.RawMessage
		if json.Unmarshal(m["checks"], &c) != nil {
			return nil
		}
		return c["tool_call_args_required_keys"]
	}
	out.defaults = fromChecks(top["defaults"])
	var cases []json.RawMessage
	if json.Unmarshal(top["cases"], &cases) == nil {
		for _, c := range cases {
			out.cases = append(out.cases, fromChecks(c))
		}
	}
	return out
}

// describe renders a value for "got ..." in messages: its JSON text,
// shortened to 60 bytes.
func describe(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<=" must read as written, not \u003c=
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	const limit = 60
	if len(b) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(b[cut]) { // never split a character
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

// strconvQuote wraps s in double quotes, unescaped (for key names in
// messages).
func strconvQuote(s string) string { return `"` + s + `"` }

// objectMembers returns the members of the JSON object raw in written
// order, each value as its raw JSON. ok is false when raw is not an object.
func objectMembers(raw json.RawMessage) (keys []string, vals map[string]json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, false
	}
	vals = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals, true
}

// orderedObject writes keys with their raw values as one JSON object, in
// the order given.
func orderedObject(keys []string, vals map[string]json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// rawMember returns the raw JSON of obj[key] when raw is an object that has
// key, else nil.
func rawMember(raw json.RawMessage, key string) json.RawMessage {
	_, vals, ok := objectMembers(raw)
	if !ok {
		return nil
	}
	return vals[key]
}

// rawElems returns the raw elements of the JSON array raw, or nil.
func rawElems(raw json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}
