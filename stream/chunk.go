package stream

import (
	"encoding/json"
	"errors"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/benchserve/benchserve/openai"
)

// decoded is the part of one chat.completion.chunk the client uses
// (choices[0] only, as the reference). Byte slices alias the event data or
// the decoder's scratch buffer and are valid until the next decode.
type decoded struct {
	id                 []byte
	content, reasoning []byte // reasoning: reasoning_content, else reasoning
	finish             []byte // nil for absent/null
	toolCalls          []openai.ToolCallDelta
	usage              *openai.Usage
	errRaw             []byte // value of "error" unless null
	errType            []byte // TGI's top-level "error_type"
	objError           bool   // "object": "error" (vLLM's ErrorResponse)
}

// chunkDecoder decodes chunks. Its fast path walks the JSON once without
// allocating (strings without escapes alias the input; escaped ones are
// unescaped into a reused buffer); anything unusual — several choices,
// duplicate keys, keys that encoding/json would match case-insensitively,
// values of unexpected types, invalid UTF-8 — falls back to encoding/json
// into openai.Chunk, so both paths agree (FuzzChunkDecode checks this).
type chunkDecoder struct {
	scratch []byte
	chunk   openai.Chunk
}

// errBadJSON is returned (wrapped) for an event whose data is not JSON.
var errBadJSON = errors.New("invalid JSON")

func (d *chunkDecoder) decode(data []byte, out *decoded) error {
	if !json.Valid(data) {
		return errBadJSON
	}
	if cap(d.scratch) < len(data) {
		d.scratch = make([]byte, 0, 2*len(data))
	}
	d.scratch = d.scratch[:0]
	*out = decoded{}
	if d.fast(data, out) {
		return nil
	}
	*out = decoded{}
	return d.slow(data, out)
}

// slow decodes with encoding/json.
func (d *chunkDecoder) slow(data []byte, out *decoded) error {
	d.chunk = openai.Chunk{}
	if err := json.Unmarshal(data, &d.chunk); err != nil {
		return err
	}
	c := &d.chunk
	out.objError = c.Object == "error"
	if c.ID != "" {
		out.id = []byte(c.ID)
	}
	out.usage = c.Usage
	if len(c.Error) > 0 && string(c.Error) != "null" {
		out.errRaw = c.Error
		var et struct {
			ErrorType any `json:"error_type"`
		}
		if json.Unmarshal(data, &et) == nil {
			if s, ok := et.ErrorType.(string); ok {
				out.errType = []byte(s)
			}
		}
	}
	if len(c.Choices) > 0 {
		ch := &c.Choices[0]
		if ch.FinishReason != nil {
			out.finish = []byte(*ch.FinishReason)
		}
		dl := &ch.Delta
		if dl.Content != nil {
			out.content = []byte(*dl.Content)
		}
		if dl.ReasoningContent != nil && *dl.ReasoningContent != "" {
			out.reasoning = []byte(*dl.ReasoningContent)
		} else if dl.Reasoning != nil {
			out.reasoning = []byte(*dl.Reasoning)
		}
		out.toolCalls = dl.ToolCalls
	}
	return nil
}

// Key bits for duplicate detection.
const (
	kID = 1 << iota
	kChoices
	kUsage
	kError
	kErrorType
	kObject
	kModel
	kCreated
)

const (
	kIndex = 1 << iota
	kDelta
	kFinish
)

const (
	kRole = 1 << iota
	kContent
	kReasoningContent
	kReasoning
	kToolCalls
)

// fast decodes valid JSON data into out; false means "use the slow path".
func (d *chunkDecoder) fast(b []byte, out *decoded) bool {
	i := skipWS(b, 0)
	if b[i] != '{' {
		return false
	}
	var seen uint
	var rc, rs []byte
	rcSet := false
	ok := objectKeys(b, i, func(key []byte, v int) (int, bool) {
		var bit uint
		switch string(key) {
		case "id":
			bit = kID
		case "choices":
			bit = kChoices
		case "usage":
			bit = kUsage
		case "error":
			bit = kError
		case "error_type":
			bit = kErrorType
		case "object":
			bit = kObject
		case "model":
			bit = kModel
		case "created":
			bit = kCreated
		default:
			if !plainKey(key) {
				return 0, false
			}
			return skipValue(b, v), true
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		switch bit {
		case kID:
			s, end, ok := d.str(b, v)
			if !ok {
				return 0, false
			}
			if len(s) > 0 {
				out.id = s
			}
			return end, true
		case kObject:
			s, end, ok := d.str(b, v)
			out.objError = string(s) == "error"
			return end, ok
		case kModel:
			_, end, ok := d.str(b, v)
			return end, ok
		case kCreated:
			return intValue(b, v)
		case kErrorType:
			// Not part of openai.Chunk: any type is fine, strings are used.
			if b[v] == '"' {
				s, end, ok := d.str(b, v)
				out.errType = s
				return end, ok
			}
			return skipValue(b, v), true
		case kError:
			end := skipValue(b, v)
			if b[v] == 'n' {
				return end, true
			}
			out.errRaw = b[v:end]
			return end, true
		case kUsage:
			end := skipValue(b, v)
			if b[v] == 'n' {
				return end, true
			}
			if b[v] != '{' {
				return 0, false
			}
			u := new(openai.Usage)
			if json.Unmarshal(b[v:end], u) != nil {
				return 0, false
			}
			out.usage = u
			return end, true
		default: // kChoices
			if b[v] == 'n' {
				return skipValue(b, v), true
			}
			if b[v] != '[' {
				return 0, false
			}
			j := skipWS(b, v+1)
			if b[j] == ']' {
				return j + 1, true
			}
			if b[j] != '{' {
				return 0, false
			}
			end, ok := d.choice(b, j, out, &rc, &rs, &rcSet)
			if !ok {
				return 0, false
			}
			j = skipWS(b, end)
			if b[j] != ']' { // more than one choice
				return 0, false
			}
			return j + 1, true
		}
	})
	if !ok {
		return false
	}
	if rcSet && len(rc) > 0 {
		out.reasoning = rc
	} else {
		out.reasoning = rs
	}
	return true
}

// choice decodes choices[0] at b[i] == '{'.
func (d *chunkDecoder) choice(b []byte, i int, out *decoded, rc, rs *[]byte, rcSet *bool) (int, bool) {
	var seen uint
	return objectKeysEnd(b, i, func(key []byte, v int) (int, bool) {
		var bit uint
		switch string(key) {
		case "index":
			bit = kIndex
		case "delta":
			bit = kDelta
		case "finish_reason":
			bit = kFinish
		default:
			if !plainKey(key) {
				return 0, false
			}
			return skipValue(b, v), true
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		switch bit {
		case kIndex:
			return intValue(b, v)
		case kFinish:
			s, end, ok := d.str(b, v)
			out.finish = s
			return end, ok
		default: // kDelta
			if b[v] == 'n' {
				return skipValue(b, v), true
			}
			if b[v] != '{' {
				return 0, false
			}
			return d.delta(b, v, out, rc, rs, rcSet)
		}
	})
}

// delta decodes choices[0].delta at b[i] == '{'.
func (d *chunkDecoder) delta(b []byte, i int, out *decoded, rc, rs *[]byte, rcSet *bool) (int, bool) {
	var seen uint
	return objectKeysEnd(b, i, func(key []byte, v int) (int, bool) {
		var bit uint
		switch string(key) {
		case "role":
			bit = kRole
		case "content":
			bit = kContent
		case "reasoning_content":
			bit = kReasoningContent
		case "reasoning":
			bit = kReasoning
		case "tool_calls":
			bit = kToolCalls
		default:
			if !plainKey(key) {
				return 0, false
			}
			return skipValue(b, v), true
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		switch bit {
		case kRole:
			_, end, ok := d.str(b, v)
			return end, ok
		case kContent:
			s, end, ok := d.str(b, v)
			out.content = s
			return end, ok
		case kReasoningContent:
			s, end, ok := d.str(b, v)
			*rc, *rcSet = s, true
			return end, ok
		case kReasoning:
			s, end, ok := d.str(b, v)
			*rs = s
			return end, ok
		default: // kToolCalls
			end := skipValue(b, v)
			if b[v] == 'n' {
				return end, true
			}
			if b[v] != '[' {
				return 0, false
			}
			var tc []openai.ToolCallDelta
			if json.Unmarshal(b[v:end], &tc) != nil {
				return 0, false
			}
			out.toolCalls = tc
			return end, true
		}
	})
}

// objectKeys calls f for each key of the object at b[i] == '{' with the
// position of its value; f returns the position after the value. It
// returns false when f does.
func objectKeys(b []byte, i int, f func(key []byte, v int) (int, bool)) bool {
	_, ok := objectKeysEnd(b, i, f)
	return ok
}

// objectKeysEnd is objectKeys returning the position after the object.
// Keys containing escapes make it fail (fallback to encoding/json).
func objectKeysEnd(b []byte, i int, f func(key []byte, v int) (int, bool)) (int, bool) {
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return i + 1, true
	}
	for {
		end, esc := scanString(b, i)
		if esc {
			return 0, false
		}
		key := b[i+1 : end-1]
		v := skipWS(b, end) // at ':'
		v = skipWS(b, v+1)
		next, ok := f(key, v)
		if !ok {
			return 0, false
		}
		i = skipWS(b, next)
		if b[i] == '}' {
			return i + 1, true
		}
		i = skipWS(b, i+1) // past ','
	}
}

// plainKey reports whether an unknown key cannot match a known field under
// encoding/json's case-insensitive matching: only [a-z0-9_] bytes.
func plainKey(k []byte) bool {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// str reads a string-or-null value at b[i]. For null it returns nil, for a
// string its unescaped bytes (non-nil, possibly empty); ok is false for
// other types or text the fast path does not handle.
func (d *chunkDecoder) str(b []byte, i int) (s []byte, end int, ok bool) {
	switch b[i] {
	case 'n':
		return nil, i + 4, true
	case '"':
	default:
		return nil, 0, false
	}
	end, esc := scanString(b, i)
	raw := b[i+1 : end-1]
	if !esc {
		if !utf8.Valid(raw) {
			return nil, 0, false
		}
		return raw, end, true
	}
	start := len(d.scratch)
	var good bool
	d.scratch, good = appendUnescaped(d.scratch, raw)
	if !good {
		return nil, 0, false
	}
	return d.scratch[start:len(d.scratch):len(d.scratch)], end, true
}

// intValue accepts null or a plain integer that fits int64 (as
// encoding/json would for an int field); anything else falls back.
func intValue(b []byte, i int) (int, bool) {
	if b[i] == 'n' {
		return i + 4, true
	}
	j := i
	if b[j] == '-' {
		j++
	}
	k := j
	for k < len(b) && b[k] >= '0' && b[k] <= '9' {
		k++
	}
	if k == j || k-j > 18 {
		return 0, false
	}
	if k < len(b) && (b[k] == '.' || b[k] == 'e' || b[k] == 'E') {
		return 0, false
	}
	return k, true
}

// skipWS returns the position of the first non-space byte at or after i.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// scanString returns the position after the string starting at b[i] == '"'
// and whether it contains escapes. b must be valid JSON.
func scanString(b []byte, i int) (int, bool) {
	esc := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			esc = true
			j++
		case '"':
			return j + 1, esc
		}
	}
	return len(b), esc
}

// skipValue returns the position after the JSON value starting at b[i].
// b must be valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, _ := scanString(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	default:
		j := i
		for j < len(b) {
			switch b[j] {
			case ',', '}', ']', ' ', '\n', '\r', '\t':
				return j
			}
			j++
		}
		return j
	}
}

// appendUnescaped appends the unescaped form of a JSON string body (valid
// JSON) to dst, mirroring encoding/json: a lone surrogate becomes U+FFFD.
// It reports false on invalid UTF-8 so the caller falls back.
func appendUnescaped(dst, s []byte) ([]byte, bool) {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := hex4(s[r+1 : r+5])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:r+6])); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				return dst, false
			}
			dst = append(dst, s[r:r+size]...)
			r += size
		}
	}
	return dst, true
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
