package stream

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/benchserve/benchserve/internal/openai"
	"github.com/benchserve/benchserve/results"
)

// decoded is the part of one chat.completion.chunk the client uses. The
// first entry of choices is held inline (index, content, …); further
// entries of the same chunk (several choices in one chunk, as some
// servers send for n > 1) are in rest. Byte slices alias the event data
// or the decoder's scratch buffer and are valid until the next decode.
type decoded struct {
	id []byte
	decodedChoice
	hasChoice bool            // choices had at least one entry
	rest      []decodedChoice // choices[1:] (slow path only)
	usage     *results.Usage
	errRaw    []byte // value of "error" unless null
	errType   []byte // TGI's top-level "error_type"
	objError  bool   // "object": "error" (vLLM's ErrorResponse)
}

// decodedChoice is one entry of a chunk's choices.
type decodedChoice struct {
	index              int
	content, reasoning []byte // reasoning: reasoning_content, else reasoning
	refusal            []byte
	finish             []byte // nil for absent/null
	toolCalls          []openai.ToolCallDelta
}

// chunkDecoder decodes chunks. Its fast path walks the JSON once without
// allocating and validates as it goes (strict RFC 8259 syntax: structure,
// literals, numbers, string escapes and control characters, nothing after
// the top-level object), so valid chunks are scanned once instead of by
// json.Valid and then again; strings without escapes alias the input,
// escaped ones are unescaped into a reused buffer. Anything unusual — several choices,
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
	if cap(d.scratch) < len(data) {
		d.scratch = make([]byte, 0, 2*len(data))
	}
	d.scratch = d.scratch[:0]
	rest := out.rest[:0]
	*out = decoded{rest: rest}
	if d.fast(data, out) {
		return nil
	}
	*out = decoded{rest: rest}
	return d.slow(data, out)
}

// slow decodes with encoding/json. It is the only place data that is not
// valid JSON is diagnosed (the fast path declines anything it does not
// fully scan and validate).
func (d *chunkDecoder) slow(data []byte, out *decoded) error {
	if !json.Valid(data) {
		return errBadJSON
	}
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
	for i := range c.Choices {
		dc := slowChoice(&c.Choices[i])
		if i == 0 {
			out.decodedChoice, out.hasChoice = dc, true
		} else {
			out.rest = append(out.rest, dc)
		}
	}
	return nil
}

// slowChoice converts one decoded choice.
func slowChoice(ch *openai.ChunkChoice) decodedChoice {
	var out decodedChoice
	out.index = ch.Index
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
	if dl.Refusal != nil {
		out.refusal = []byte(*dl.Refusal)
	}
	out.toolCalls = dl.ToolCalls
	return out
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
	kRefusal
)

// fast decodes data into out; false means "use the slow path", either
// because the chunk has a shape the fast path leaves to encoding/json or
// because data is not valid JSON (the slow path then reports it). It never
// reads past len(b).
func (d *chunkDecoder) fast(b []byte, out *decoded) bool {
	i := skipWS(b, 0)
	if at(b, i) != '{' {
		return false
	}
	var seen uint
	end, ok := objectKeysEnd(b, i, func(key []byte, v int) (int, bool) {
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
			return skipValue(b, v, 0)
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
			return skipValue(b, v, 0)
		case kError:
			end, ok := skipValue(b, v, 0)
			if !ok {
				return 0, false
			}
			if b[v] != 'n' {
				out.errRaw = b[v:end]
			}
			return end, true
		case kUsage:
			end, ok := skipValue(b, v, 0)
			if !ok {
				return 0, false
			}
			if b[v] == 'n' {
				return end, true
			}
			if b[v] != '{' {
				return 0, false
			}
			u := new(results.Usage)
			if json.Unmarshal(b[v:end], u) != nil {
				return 0, false
			}
			out.usage = u
			return end, true
		default: // kChoices
			if b[v] == 'n' {
				return literal(b, v, "null")
			}
			if b[v] != '[' {
				return 0, false
			}
			j := skipWS(b, v+1)
			if at(b, j) == ']' {
				return j + 1, true
			}
			if at(b, j) != '{' {
				return 0, false
			}
			end, ok := d.choice(b, j, &out.decodedChoice)
			if !ok {
				return 0, false
			}
			out.hasChoice = true
			j = skipWS(b, end)
			if at(b, j) != ']' { // more than one choice, or not JSON
				return 0, false
			}
			return j + 1, true
		}
	})
	return ok && skipWS(b, end) == len(b)
}

// choice decodes choices[0] at b[i] == '{'.
func (d *chunkDecoder) choice(b []byte, i int, out *decodedChoice) (int, bool) {
	var seen uint
	var rc, rs []byte
	rcSet := false
	end, ok := objectKeysEnd(b, i, func(key []byte, v int) (int, bool) {
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
			return skipValue(b, v, 0)
		}
		if seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		switch bit {
		case kIndex:
			end, ok := intValue(b, v)
			if ok && b[v] != 'n' {
				n, err := strconv.Atoi(string(b[v:end]))
				if err != nil {
					return 0, false
				}
				out.index = n
			}
			return end, ok
		case kFinish:
			s, end, ok := d.str(b, v)
			out.finish = s
			return end, ok
		default: // kDelta
			if b[v] == 'n' {
				return literal(b, v, "null")
			}
			if b[v] != '{' {
				return 0, false
			}
			return d.delta(b, v, out, &rc, &rs, &rcSet)
		}
	})
	if rcSet && len(rc) > 0 {
		out.reasoning = rc
	} else {
		out.reasoning = rs
	}
	return end, ok
}

// delta decodes choices[0].delta at b[i] == '{'.
func (d *chunkDecoder) delta(b []byte, i int, out *decodedChoice, rc, rs *[]byte, rcSet *bool) (int, bool) {
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
		case "refusal":
			bit = kRefusal
		default:
			if !plainKey(key) {
				return 0, false
			}
			return skipValue(b, v, 0)
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
		case kRefusal:
			s, end, ok := d.str(b, v)
			out.refusal = s
			return end, ok
		default: // kToolCalls
			end, ok := skipValue(b, v, 0)
			if !ok {
				return 0, false
			}
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

// str reads a string-or-null value at b[i]. For null it returns nil, for a
// string its unescaped bytes (non-nil, possibly empty); ok is false for
// other types, invalid JSON, or text the fast path does not handle
// (invalid UTF-8, which encoding/json replaces).
func (d *chunkDecoder) str(b []byte, i int) (s []byte, end int, ok bool) {
	switch at(b, i) {
	case 'n':
		end, ok = literal(b, i, "null")
		return nil, end, ok
	case '"':
	default:
		return nil, 0, false
	}
	end, esc, ok := scanString(b, i)
	if !ok {
		return nil, 0, false
	}
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
